import { useState } from "preact/hooks";
import { formatBytes, plural } from "../../../common/text/format";
import { admin, asAccount } from "../api";
import { Badge, Loading, Status, TableHead, TableWrap, TabPanel, Tabs, useTitle, when } from "../components";
import { checkField, rulesOf } from "../field-rules";
import { useAction, useInterval, useLoad } from "../hooks";
import type { PageProps } from "../page";
import { go, href } from "../router";
import { StatePanel } from "./admin-state";
import { ClockPanel, FaultsPanel, OverridesPanel } from "./admin-system";
import { LimitRequestTable } from "./limits";

const TABS = [
  { id: "review", label: "Review queue" },
  { id: "limits", label: "Limit requests" },
  { id: "overrides", label: "Overrides" },
  { id: "status", label: "Extension status" },
  { id: "clock", label: "Clock" },
  { id: "faults", label: "Faults" },
  { id: "state", label: "Reset and fixtures" },
] as const;
type Tab = (typeof TABS)[number]["id"];

export function AdminPage(props: PageProps) {
  // The tab lives in the URL (#/admin/faults): a reload or a shared link opens the same one.
  const tab: Tab = TABS.find((t) => t.id === props.route[1])?.id ?? "review";
  const label = TABS.find((t) => t.id === tab)!.label;
  useTitle(`${label} · Admin`);
  return (
    <>
      <h1>Admin</h1>
      <p class="muted">What the platform's reviewers and admins do, which no real platform lets a developer touch.</p>
      <Tabs label="Admin sections" idPrefix="admin" current={tab} onSelect={(id) => go("admin", id)} tabs={[...TABS]} />
      <TabPanel idPrefix="admin" current={tab}>
        <AdminTab tab={tab} props={props} />
      </TabPanel>
    </>
  );
}

function AdminTab({ tab, props }: { tab: Tab; props: PageProps }) {
  return (
    <>
      {tab === "review" && <ReviewQueue />}
      {tab === "limits" && <LimitRequests />}
      {tab === "overrides" && <OverridesPanel {...props} />}
      {tab === "status" && <ExtensionStatus {...props} />}
      {tab === "clock" && <ClockPanel />}
      {tab === "faults" && <FaultsPanel />}
      {tab === "state" && <StatePanel {...props} />}
    </>
  );
}

function ReviewQueue() {
  const queue = useLoad(() => admin((c) => c.GET("/_emulator/review-queue")).then((r) => r.versions), []);
  // New submissions (an `ext deploy` in a terminal) appear while the page is open.
  useInterval(queue.reload, 2000);
  const [reasons, setReasons] = useState<Record<string, string>>({});
  const action = useAction();
  return (
    <section aria-labelledby="queue-h">
      <h2 id="queue-h">Review queue</h2>
      <Status message={action.message} />
      <Loading state={queue}>
        {(items) =>
          items.length === 0 ? (
            <p>No version is waiting for review.</p>
          ) : (
            <TableWrap label="Pending versions">
              <TableHead columns={["Extension", "Version", "Bundle", "Submitted", "Decision"]} />
              <tbody>
                {items.map((v) => (
                  <tr key={v.versionId} data-queue-version={v.version}>
                    <td data-label="Extension">
                      {v.extensionName}
                      <div class="muted small">
                        <code>{v.extensionId}</code> · {v.accountId}
                      </div>
                    </td>
                    <td data-label="Version">
                      <a href={href("extensions", v.extensionId, "versions", v.versionId)}>{v.version}</a>
                      <div class="small">{v.changelog}</div>
                    </td>
                    <td data-label="Bundle">
                      {formatBytes(v.bundleSizeBytes)} · {plural(v.soundCount, "sound")}
                      {v.warnings.length > 0 && <div class="small">{plural(v.warnings.length, "warning")}</div>}
                    </td>
                    <td data-label="Submitted">{when(v.submittedAt)}</td>
                    <td class="actions">
                      <button
                        type="button"
                        aria-label={`Approve ${v.extensionName} ${v.version}`}
                        disabled={action.busy}
                        onClick={() =>
                          action.run(async () => {
                            await admin((c) =>
                              c.POST("/_emulator/versions/{versionId}/approve", {
                                params: { path: { versionId: v.versionId } },
                              }),
                            );
                            queue.reload();
                          }, `${v.extensionName} ${v.version} approved.`)
                        }
                      >
                        Approve
                      </button>
                      <form
                        class="inline"
                        onSubmit={(e) => {
                          e.preventDefault();
                          const reason = reasons[v.versionId] ?? "";
                          const problem = checkField(rulesOf("VersionRejection").reason, "A reason to reject", reason);
                          if (problem) return action.refuse(problem);
                          void action.run(async () => {
                            await admin((c) =>
                              c.POST("/_emulator/versions/{versionId}/reject", {
                                params: { path: { versionId: v.versionId } },
                                body: { reason: reasons[v.versionId] ?? "" },
                              }),
                            );
                            queue.reload();
                          }, `${v.extensionName} ${v.version} rejected.`);
                        }}
                      >
                        <label for={`rej-${v.versionId}`} class="sr-only">
                          Reason to reject {v.version}
                        </label>
                        <input
                          id={`rej-${v.versionId}`}
                          placeholder="Reason"
                          value={reasons[v.versionId] ?? ""}
                          onInput={(e) => setReasons({ ...reasons, [v.versionId]: e.currentTarget.value })}
                        />
                        <button type="submit" class="danger" disabled={action.busy}>
                          Reject
                        </button>
                      </form>
                    </td>
                  </tr>
                ))}
              </tbody>
            </TableWrap>
          )
        }
      </Loading>
    </section>
  );
}

function LimitRequests() {
  const list = useLoad(() => admin((c) => c.GET("/_emulator/limit-requests")).then((r) => r.limitRequests), []);
  const [reasons, setReasons] = useState<Record<string, string>>({});
  const action = useAction();
  return (
    <section aria-labelledby="alr-h">
      <h2 id="alr-h">Limit increase requests</h2>
      <p class="muted">Approving applies the values at once, as overrides of the request's scope.</p>
      <Status message={action.message} />
      <Loading state={list}>
        {(items) => (
          <LimitRequestTable
            items={items}
            actions={(r) =>
              r.status === "pending" && (
                <>
                  <button
                    type="button"
                    aria-label={`Approve ${r.id}`}
                    onClick={() =>
                      action.run(async () => {
                        await admin((c) =>
                          c.POST("/_emulator/limit-requests/{id}/approve", {
                            params: { path: { id: r.id } },
                            body: {},
                          }),
                        );
                        list.reload();
                      }, `${r.id} approved: the new values apply now.`)
                    }
                  >
                    Approve
                  </button>
                  <form
                    class="inline"
                    onSubmit={(e) => {
                      e.preventDefault();
                      const problem = checkField(
                        rulesOf("POST /_emulator/limit-requests/{id}/reject").reason,
                        "A reason to reject",
                        reasons[r.id] ?? "",
                      );
                      if (problem) return action.refuse(problem);
                      void action.run(async () => {
                        await admin((c) =>
                          c.POST("/_emulator/limit-requests/{id}/reject", {
                            params: { path: { id: r.id } },
                            body: { reason: reasons[r.id] ?? "" },
                          }),
                        );
                        list.reload();
                      }, `${r.id} rejected.`);
                    }}
                  >
                    <label for={`lrr-${r.id}`} class="sr-only">
                      Reason to reject {r.id}
                    </label>
                    <input
                      id={`lrr-${r.id}`}
                      placeholder="Reason"
                      value={reasons[r.id] ?? ""}
                      onInput={(e) => setReasons({ ...reasons, [r.id]: e.currentTarget.value })}
                    />
                    <button type="submit" class="danger">
                      Reject
                    </button>
                  </form>
                </>
              )
            }
          />
        )}
      </Loading>
    </section>
  );
}

function ExtensionStatus({ account }: PageProps) {
  const list = useLoad(
    () =>
      account
        ? asAccount(account, (api) => api.GET("/developer/v1/extensions")).then((r) => r.extensions)
        : Promise.resolve([]),
    [account],
  );
  const action = useAction();
  return (
    <section aria-labelledby="status-h">
      <h2 id="status-h">Extension status ({account})</h2>
      <Status message={action.message} />
      <Loading state={list}>
        {(items) =>
          items.length === 0 ? (
            <p>No extensions on this account.</p>
          ) : (
            <TableWrap label="Extension status">
              <TableHead columns={["Extension", "Status", "Admin"]} />
              <tbody>
                {items.map((e) => {
                  const disabled = e.status === "disabled";
                  return (
                    <tr key={e.id}>
                      <td data-label="Extension">
                        {e.name} <code class="small">{e.id}</code>
                      </td>
                      <td data-label="Status">
                        <Badge value={e.status} />
                      </td>
                      <td class="actions">
                        <button
                          type="button"
                          class={disabled ? "" : "danger"}
                          onClick={() =>
                            action.run(
                              async () => {
                                const params = { params: { path: { id: e.id } } };
                                await admin((c) =>
                                  disabled
                                    ? c.POST("/_emulator/extensions/{id}/enable", params)
                                    : c.POST("/_emulator/extensions/{id}/disable", params),
                                );
                                list.reload();
                              },
                              `${e.name} ${disabled ? "enabled" : "disabled"}.`,
                            )
                          }
                        >
                          {disabled ? "Enable" : "Disable"} {e.name}
                        </button>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </TableWrap>
          )
        }
      </Loading>
    </section>
  );
}
