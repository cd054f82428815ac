import { useState } from "preact/hooks";
import { formatBytes, plural } from "../../../common/text/format";
import { characterCount } from "../../../common/text/text-length";
import { admin, asAccount, type LimitRequest, type ScopeLimitUsageRow } from "../api";
import {
  Badge,
  Crumbs,
  FieldError,
  invalidProps,
  Loading,
  Status,
  TableHead,
  TableWrap,
  TabPanel,
  Tabs,
  useTitle,
  when,
} from "../components";
import { checkField, rulesOf } from "../field-rules";
import { useAction, useLoad } from "../hooks";
import type { PageProps } from "../page";
import { go, href } from "../router";

const show = (row: Pick<ScopeLimitUsageRow, "unit">, n: number | null) =>
  n === null ? "—" : row.unit === "bytes" ? formatBytes(n) : String(n);

/** A requested value's problem: a whole number, above the value in force (the API refuses a decrease), within the hard max. */
function wantedProblem(row: ScopeLimitUsageRow, text: string): string | null {
  const label = `The new ${row.key}`;
  if (text.trim() === "") return `${label} is required.`;
  const n = Number(text);
  if (!Number.isInteger(n)) return `${label} must be a whole number.`;
  if (n <= row.value)
    return `${label} must be above the current ${show(row, row.value)}: a request can only raise a limit.`;
  if (row.hardMax !== null && n > row.hardMax) return `${label} can be at most the hard max ${show(row, row.hardMax)}.`;
  return null;
}

/** #/limits/<tab>/<extension id>: the tab and the scope live in the URL. */
export function LimitsPage({ account, accounts, route }: PageProps) {
  const tab = route[1] === "requests" ? "requests" : "limits";
  const scope = route[2] ?? "";
  const setTab = (t: "limits" | "requests") => go("limits", t, ...(scope ? [scope] : []));
  const setScope = (s: string) => go("limits", tab, ...(s ? [s] : []));
  const extensions = useLoad(
    () =>
      account
        ? asAccount(account, (api) => api.GET("/developer/v1/extensions")).then((r) => r.extensions)
        : Promise.resolve([]),
    [account],
  );
  const scopeValid = scope === "" || (extensions.data ?? []).some((e) => e.id === scope);
  const extensionId = scopeValid ? scope : "";
  const extensionName = (extensions.data ?? []).find((e) => e.id === extensionId)?.name;
  const accountName = accounts.find((a) => a.id === account)?.name ?? account;
  useTitle(extensionName ? `Limits of ${extensionName}` : "Developer limits");
  return (
    <>
      <h1>Developer limits</h1>
      <Crumbs
        items={[
          { label: accountName },
          { label: "Developer limits", href: href("limits", tab) },
          ...(extensionName ? [{ label: extensionName }] : []),
        ]}
      />
      <div class="inline">
        <label for="scope">Scope</label>
        <select id="scope" value={extensionId} onChange={(e) => setScope(e.currentTarget.value)}>
          <option value="">The account</option>
          {(extensions.data ?? []).map((e) => (
            <option key={e.id} value={e.id}>
              Extension: {e.name}
            </option>
          ))}
        </select>
      </div>
      <Tabs
        label="Limits views"
        idPrefix="limits"
        current={tab}
        onSelect={setTab}
        tabs={[
          { id: "limits", label: "Limits" },
          { id: "requests", label: "Requests" },
        ]}
      />
      <TabPanel idPrefix="limits" current={tab}>
        {tab === "limits" ? (
          <LimitsTab
            account={account}
            extensionId={extensionId}
            extensionName={extensionName}
            onSubmitted={() => setTab("requests")}
          />
        ) : (
          <RequestsTab account={account} />
        )}
      </TabPanel>
    </>
  );
}

/** The spec's groups of section 8, in its order (rate limits first and hard limits last have their own tables). */
const GROUPS = [
  { category: "account", label: "Per-account limits" },
  { category: "storage", label: "Per-extension storage" },
  { category: "serverFunctions", label: "Server functions" },
  { category: "realtime", label: "Real-time" },
  { category: "sounds", label: "Bundled sounds" },
  { category: "build", label: "Build limits" },
];

const SOURCE_WORDS: Record<ScopeLimitUsageRow["source"], string> = {
  platform_default: "default",
  developer_override: "account override",
  extension_override: "extension override",
};

const period = (seconds: number) =>
  seconds === 60 ? "minute" : seconds === 3600 ? "hour" : seconds === 1 ? "second" : `${seconds} s`;

type Step = "select" | "values" | "reason" | "review";

function LimitsTab({
  account,
  extensionId,
  extensionName,
  onSubmitted,
}: {
  account: string;
  extensionId: string;
  extensionName: string | undefined;
  onSubmitted(): void;
}) {
  const limits = useLoad(
    () =>
      account
        ? admin((c) =>
            c.GET("/_emulator/limits", {
              params: { query: { accountId: account, ...(extensionId ? { extensionId } : {}) } },
            }),
          )
        : Promise.resolve({ accountId: "", extensionId: null, limits: [], rateLimits: [] }),
    [account, extensionId],
  );
  const [selected, setSelected] = useState<string[]>([]);
  const [values, setValues] = useState<Record<string, string>>({});
  const [reason, setReason] = useState("");
  const [step, setStep] = useState<Step>("select");
  const [problems, setProblems] = useState<Record<string, string>>({});
  const action = useAction();
  const rows = limits.data?.limits ?? [];
  const chosen = rows.filter((r) => selected.includes(r.key));

  return (
    <section aria-labelledby="limits-h">
      <h2 id="limits-h">{extensionId ? `Limits of ${extensionName ?? extensionId}` : "Limits of the account"}</h2>
      <Loading state={limits}>
        {(usage) => (
          <>
            <section aria-labelledby="group-rate">
              <h3 id="group-rate">API rate limits</h3>
              <TableWrap label="API rate limits">
                <TableHead columns={["Requests", "Limit"]} />
                <tbody>
                  {usage.rateLimits.map((r) => (
                    <tr key={r.group} data-rate-group={r.group}>
                      <td data-label="Requests">{r.label}</td>
                      <td data-label="Limit">
                        {r.limit} per {period(r.periodSeconds)}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </TableWrap>
            </section>
            {GROUPS.map((g) => {
              const rows = usage.limits.filter((r) => r.category === g.category);
              return rows.length === 0 ? null : (
                <section key={g.category} aria-labelledby={`group-${g.category}`} data-limit-group={g.category}>
                  <h3 id={`group-${g.category}`}>{g.label}</h3>
                  <TableWrap label={g.label}>
                    <TableHead columns={["Request", "Limit", "Value", "Source", "Hard max", "Usage"]} />
                    <tbody>
                      {rows.map((r) => (
                        <tr key={r.key} data-limit={r.key}>
                          <td data-label="Request">
                            <input
                              type="checkbox"
                              id={`pick-${r.key}`}
                              aria-label={`Request an increase of ${r.key}`}
                              checked={selected.includes(r.key)}
                              onChange={(e) =>
                                setSelected(
                                  e.currentTarget.checked ? [...selected, r.key] : selected.filter((k) => k !== r.key),
                                )
                              }
                            />
                          </td>
                          <td data-label="Limit">
                            <code>{r.key}</code>
                            <div class="muted small">{r.description}</div>
                          </td>
                          <td data-label="Value" data-testid="limit-value">
                            {show(r, r.value)}
                          </td>
                          <td data-label="Source" data-testid="limit-source">
                            <Badge value={r.source} label={SOURCE_WORDS[r.source]} />
                          </td>
                          <td data-label="Hard max">{show(r, r.hardMax)}</td>
                          <td data-label="Usage">{r.usage === null ? "—" : `${r.usage} of ${r.value}`}</td>
                        </tr>
                      ))}
                    </tbody>
                  </TableWrap>
                </section>
              );
            })}
            <section aria-labelledby="group-hard">
              <h3 id="group-hard">Hard limits (cannot be raised on any plan)</h3>
              <TableWrap label="Hard limits">
                <TableHead columns={["Limit", "Hard limit"]} />
                <tbody>
                  {usage.limits
                    .filter((r) => r.hardMax !== null)
                    .map((r) => (
                      <tr key={r.key}>
                        <td data-label="Limit">
                          <code>{r.key}</code>
                          <div class="muted small">{r.description}</div>
                        </td>
                        <td data-label="Hard limit">{show(r, r.hardMax)}</td>
                      </tr>
                    ))}
                </tbody>
              </TableWrap>
            </section>
          </>
        )}
      </Loading>

      <h3>Request an increase</h3>
      <ol class="steps" aria-label="Steps">
        {(["select", "values", "reason", "review"] as Step[]).map((s, i) => (
          <li key={s} aria-current={s === step ? "step" : undefined}>
            {i + 1}.{" "}
            {s === "select"
              ? "Select limits"
              : s === "values"
                ? "Desired values"
                : s === "reason"
                  ? "Reason"
                  : "Review and submit"}
          </li>
        ))}
      </ol>
      {step === "select" && (
        <p>
          {chosen.length === 0
            ? "Tick the limits to raise in the table."
            : `Selected: ${chosen.map((c) => c.key).join(", ")}.`}{" "}
          <button type="button" disabled={chosen.length === 0} onClick={() => setStep("values")}>
            Next: desired values
          </button>
        </p>
      )}
      {step === "values" && (
        <form
          class="stack"
          onSubmit={(e) => {
            e.preventDefault();
            const found: Record<string, string> = {};
            for (const c of chosen) {
              const problem = wantedProblem(c, values[c.key] ?? "");
              if (problem) found[c.key] = problem;
            }
            setProblems(found);
            const first = chosen.find((c) => found[c.key]);
            if (first) return document.getElementById(`want-${first.key}`)?.focus();
            setStep("reason");
          }}
        >
          {chosen.map((c) => (
            <div key={c.key}>
              <label for={`want-${c.key}`}>
                {c.key} (now {show(c, c.value)}
                {c.hardMax !== null ? `, hard max ${show(c, c.hardMax)}` : ""})
              </label>
              <input
                id={`want-${c.key}`}
                type="number"
                value={values[c.key] ?? ""}
                onInput={(e) => setValues({ ...values, [c.key]: e.currentTarget.value })}
                {...invalidProps(`want-${c.key}-error`, problems[c.key])}
              />
              <FieldError id={`want-${c.key}-error`} problem={problems[c.key]} />
            </div>
          ))}
          <p>
            <button type="button" class="secondary" onClick={() => setStep("select")}>
              Back
            </button>{" "}
            <button type="submit">Next: reason</button>
          </p>
        </form>
      )}
      {step === "reason" && (
        <form
          class="stack"
          onSubmit={(e) => {
            e.preventDefault();
            const problem = checkField(rulesOf("LimitRequestCreate").reason, "The reason", reason);
            setProblems(problem ? { reason: problem } : {});
            if (problem) return document.getElementById("reason")?.focus();
            setStep("review");
          }}
        >
          <label for="reason">
            Why you need it (at least {rulesOf("LimitRequestCreate").reason?.minLength} characters)
          </label>
          <textarea
            id="reason"
            rows={3}
            value={reason}
            onInput={(e) => setReason(e.currentTarget.value)}
            aria-describedby={problems.reason ? "reason-error reason-count" : "reason-count"}
            aria-invalid={problems.reason ? true : undefined}
          />
          <FieldError id="reason-error" problem={problems.reason} />
          <p id="reason-count" class="muted small">
            {plural(characterCount(reason.trim()), "character")}
          </p>
          <p>
            <button type="button" class="secondary" onClick={() => setStep("values")}>
              Back
            </button>{" "}
            <button type="submit">Next: review</button>
          </p>
        </form>
      )}
      {step === "review" && (
        <div>
          <dl class="facts">
            <div>
              <dt>Scope</dt>
              <dd>{extensionId ? `extension ${extensionName ?? extensionId}` : `account ${account}`}</dd>
            </div>
            {chosen.map((c) => (
              <div key={c.key}>
                <dt>{c.key}</dt>
                <dd data-testid={`review-${c.key}`}>
                  {show(c, c.value)} → {show(c, Number(values[c.key]))}
                </dd>
              </div>
            ))}
            <div>
              <dt>Reason</dt>
              <dd>{reason}</dd>
            </div>
          </dl>
          <p>
            <button type="button" class="secondary" onClick={() => setStep("reason")}>
              Back
            </button>{" "}
            <button
              type="button"
              disabled={action.busy}
              onClick={async () => {
                const ok = await action.run(
                  () =>
                    admin((c) =>
                      c.POST("/_emulator/limit-requests", {
                        body: {
                          accountId: account,
                          ...(extensionId ? { scope: "extension", extensionId } : { scope: "account" }),
                          limits: Object.fromEntries(chosen.map((c) => [c.key, Number(values[c.key])])),
                          reason,
                        },
                      }),
                    ),
                  "Request submitted: see the Requests tab.",
                );
                if (ok) {
                  setSelected([]);
                  setValues({});
                  setReason("");
                  setStep("select");
                  onSubmitted();
                }
              }}
            >
              Submit request
            </button>
          </p>
        </div>
      )}
      <Status message={action.message} />
    </section>
  );
}

function RequestsTab({ account }: { account: string }) {
  const list = useLoad(
    () =>
      admin((c) => c.GET("/_emulator/limit-requests", { params: { query: { accountId: account } } })).then(
        (r) => r.limitRequests,
      ),
    [account],
  );
  return (
    <section aria-labelledby="lr-h">
      <h2 id="lr-h">Requests</h2>
      <Loading state={list}>{(items) => <LimitRequestTable items={items} />}</Loading>
    </section>
  );
}

export function LimitRequestTable({
  items,
  actions,
}: {
  items: LimitRequest[];
  actions?: (r: LimitRequest) => preact.ComponentChildren;
}) {
  if (items.length === 0) return <p>No limit requests.</p>;
  return (
    <TableWrap label="Limit requests">
      <TableHead columns={["Request", "Limits", "Status", "History"]} hidden={actions ? "Decision" : undefined} />
      <tbody>
        {[...items].reverse().map((r) => (
          <tr key={r.id} data-request={r.id}>
            <td data-label="Request">
              <code>{r.id}</code>
              <div class="muted small">
                {r.scope === "extension" ? `extension ${r.extensionId}` : `account ${r.accountId}`}
              </div>
              <div class="small">{r.reason}</div>
            </td>
            <td data-label="Limits">
              {Object.entries(r.limits).map(([k, v]) => (
                <div key={k}>
                  <code>{k}</code> → {v}
                </div>
              ))}
            </td>
            <td data-label="Status" data-testid="request-status">
              <Badge value={r.status} />
            </td>
            <td class="small" data-label="History">
              <div>submitted {when(r.createdAt)}</div>
              {r.decidedAt && (
                <div>
                  {r.status} {when(r.decidedAt)}
                  {r.decisionReason ? `: ${r.decisionReason}` : ""}
                </div>
              )}
            </td>
            {actions && <td class="actions">{actions(r)}</td>}
          </tr>
        ))}
      </tbody>
    </TableWrap>
  );
}
