import { useEffect, useRef, useState } from "preact/hooks";
import { formatBytes } from "../../../common/text/format";
import {
  ApiCallError,
  admin,
  asAccount,
  type Extension,
  type ExtensionUpdate,
  type InstallStatistics,
  type Version,
} from "../api";
import {
  Badge,
  Crumbs,
  FieldError,
  IdCard,
  invalidProps,
  Loading,
  RejectReason,
  Status,
  TableHead,
  TableWrap,
  useTitle,
  when,
} from "../components";
import { useAction, useFieldCheck, useInterval, useLoad } from "../hooks";
import { accountName, type PageProps } from "../page";
import { go, href } from "../router";

const SECRET_PATH_PARAMS = "PUT /developer/v1/extensions/{id}/secrets/{key} params";

interface Loaded {
  extension: Extension;
  versions: Version[];
  installs: InstallStatistics;
  secrets: string[];
}

/** The page's sections; #/extensions/<id>/<section> scrolls to one, so a link can point at it. */
const SECTIONS = [
  { id: "details", label: "Details" },
  { id: "versions", label: "Versions" },
  { id: "installs", label: "Installs" },
  { id: "secrets", label: "Secrets" },
  { id: "danger", label: "Delete" },
] as const;

export function ExtensionDetail(props: PageProps & { extensionId: string }) {
  const { account, extensionId, refreshAccounts, route } = props;
  const section = SECTIONS.find((s) => s.id === route[2])?.id;
  const params = { params: { path: { id: extensionId } } };
  const state = useLoad<Loaded>(async () => {
    const [ext, versions, installs, secrets] = await Promise.all([
      asAccount(account, (api) => api.GET("/developer/v1/extensions/{id}", params)),
      asAccount(account, (api) =>
        api.GET("/developer/v1/extensions/{id}/versions", {
          params: { path: { id: extensionId }, query: { include: "archived" } },
        }),
      ),
      asAccount(account, (api) => api.GET("/developer/v1/extensions/{id}/installs", params)),
      asAccount(account, (api) => api.GET("/developer/v1/extensions/{id}/secrets", params)),
    ]);
    return { extension: ext, versions: versions.versions, installs, secrets: secrets.keys };
  }, [account, extensionId]);

  // A review decided elsewhere (the Admin page, a test, --auto-approve) or a new deploy shows up here without a
  // reload: the control plane's review queue is polled (it is not in the request log), and when this
  // extension's pending versions there differ from the ones shown, the page's data is loaded again.
  const shownPending = useRef("");
  shownPending.current = (state.data?.versions ?? [])
    .filter((v) => v.status === "pending")
    .map((v) => v.id)
    .sort()
    .join(",");
  useInterval(async () => {
    if (!state.data || state.loading) return;
    try {
      const queue = await admin((c) => c.GET("/_emulator/review-queue"));
      const pending = queue.versions
        .filter((v) => v.extensionId === extensionId)
        .map((v) => v.versionId)
        .sort()
        .join(",");
      if (pending !== shownPending.current) state.reload();
    } catch {
      // the next tick tries again
    }
  }, 1500);

  const name = state.data?.extension.name;
  useTitle(name);
  const loaded = state.data !== undefined;
  useEffect(() => {
    if (loaded && section) document.getElementById(`${section}-h`)?.scrollIntoView();
  }, [loaded, section]);

  return (
    <Loading state={state}>
      {(d) => (
        <>
          <Crumbs
            items={[
              { label: accountName(props) },
              { label: "Extensions", href: href("extensions") },
              { label: d.extension.name },
            ]}
          />
          <h1>{d.extension.name}</h1>
          <IdCard label="Extension ID" id={d.extension.id} />
          <nav aria-label="Sections of this extension" class="section-nav">
            <ul>
              {SECTIONS.map((s) => (
                <li key={s.id}>
                  <a
                    href={href("extensions", extensionId, s.id)}
                    aria-current={s.id === section ? "location" : undefined}
                  >
                    {s.label}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
          <p>
            Status <Badge value={d.extension.status} /> · {d.extension.visibility} · current version{" "}
            <CurrentVersion extensionId={extensionId} id={d.extension.currentVersionId} versions={d.versions} />
          </p>
          <DetailsForm account={account} extension={d.extension} onSaved={state.reload} />
          <Versions extensionId={extensionId} versions={d.versions} />
          <Installs extensionId={extensionId} installs={d.installs} versions={d.versions} onChange={state.reload} />
          <Secrets account={account} extensionId={extensionId} names={d.secrets} onChange={state.reload} />
          <Danger
            account={account}
            extensionId={extensionId}
            onDeleted={() => {
              refreshAccounts();
              go("extensions");
            }}
          />
        </>
      )}
    </Loading>
  );
}

/** The current version by its label ("2.0.0"), linked to its bundle; the id only if the list lacks it. */
function CurrentVersion({
  extensionId,
  id,
  versions,
}: {
  extensionId: string;
  id: string | null;
  versions: Version[];
}) {
  if (!id) return <span data-testid="current-version">none</span>;
  const label = versions.find((v) => v.id === id)?.version;
  return (
    <a href={href("extensions", extensionId, "versions", id)} data-testid="current-version">
      {label ?? <code>{id}</code>}
    </a>
  );
}

function DetailsForm({ account, extension, onSaved }: { account: string; extension: Extension; onSaved(): void }) {
  const [form, setForm] = useState({
    name: extension.name,
    short_description: extension.short_description,
    description: extension.description,
    visibility: extension.visibility,
  });
  useEffect(
    () =>
      setForm({
        name: extension.name,
        short_description: extension.short_description,
        description: extension.description,
        visibility: extension.visibility,
      }),
    [extension.updatedAt],
  );
  const action = useAction();
  const checks = useFieldCheck("ExtensionUpdate");
  const field = (k: keyof typeof form, id: string) => ({
    id,
    value: form[k],
    onInput: (e: { currentTarget: { value: string } }) => setForm({ ...form, [k]: e.currentTarget.value }),
    ...invalidProps(`${id}-error`, checks.problems[k]),
  });
  return (
    <section aria-labelledby="details-h">
      <h2 id="details-h">Details</h2>
      {/* The id is the page's own card above, whole and with its copy button. */}
      <dl class="facts">
        <div>
          <dt>Slug</dt>
          <dd>
            <code>{extension.slug}</code>
          </dd>
        </div>
        <div>
          <dt>Pricing</dt>
          <dd>{extension.pricing.type}</dd>
        </div>
        <div>
          <dt>Installs</dt>
          <dd>{extension.installCount}</dd>
        </div>
        <div>
          <dt>Ratings</dt>
          <dd>{extension.ratingCount}</dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>{when(extension.createdAt)}</dd>
        </div>
        <div>
          <dt>Updated</dt>
          <dd>{when(extension.updatedAt)}</dd>
        </div>
      </dl>
      <form
        class="stack"
        onSubmit={async (e) => {
          e.preventDefault();
          // Only what changed is sent; the API decides what is acceptable.
          const patch: Record<string, string> = {};
          for (const k of Object.keys(form) as (keyof typeof form)[]) if (form[k] !== extension[k]) patch[k] = form[k];
          action.clear();
          const valid = checks.check({
            name: { id: "f-name", label: "Name", value: form.name },
            short_description: { id: "f-short", label: "Short description", value: form.short_description },
            description: { id: "f-desc", label: "Description", value: form.description },
          });
          if (!valid) return;
          await action.run(async () => {
            await asAccount(account, (api) =>
              api.PATCH("/developer/v1/extensions/{id}", {
                params: { path: { id: extension.id } },
                // The form's fields are the update's; a value the API refuses comes back as its 422.
                body: patch as ExtensionUpdate,
              }),
            );
            onSaved();
          }, "Saved.");
        }}
      >
        <label for="f-name">Name</label>
        <input {...field("name", "f-name")} />
        <FieldError id="f-name-error" problem={checks.problems.name} />
        <label for="f-short">Short description</label>
        <input {...field("short_description", "f-short")} />
        <FieldError id="f-short-error" problem={checks.problems.short_description} />
        <label for="f-desc">Description</label>
        <textarea rows={4} {...field("description", "f-desc")} />
        <FieldError id="f-desc-error" problem={checks.problems.description} />
        <label for="f-vis">Visibility</label>
        <select
          id="f-vis"
          value={form.visibility}
          onChange={(e) => setForm({ ...form, visibility: e.currentTarget.value })}
        >
          <option value="private">private</option>
          <option value="unlisted">unlisted</option>
          <option value="public">public</option>
        </select>
        <button type="submit" disabled={action.busy}>
          Save changes
        </button>
      </form>
      <Status message={action.message} />
    </section>
  );
}

function Versions({ extensionId, versions }: { extensionId: string; versions: Version[] }) {
  return (
    <section aria-labelledby="versions-h">
      <h2 id="versions-h">Versions</h2>
      {versions.length === 0 ? (
        <p>
          No versions yet: deploy one with <code>ext deploy</code>.
        </p>
      ) : (
        <TableWrap label="Versions">
          <TableHead columns={["Version", "Status", "Size", "Submitted", "Approved", "Changelog"]} />
          <tbody>
            {versions.map((v) => (
              <tr key={v.id} data-version={v.version}>
                <td data-label="Version">
                  <a href={href("extensions", extensionId, "versions", v.id)}>{v.version}</a>
                </td>
                <td data-label="Status">
                  <span data-testid="version-status">
                    <Badge value={v.status} />
                  </span>
                  {v.rejectReason !== undefined && <RejectReason reason={v.rejectReason} />}
                </td>
                <td data-label="Size">{formatBytes(v.bundleSizeBytes)}</td>
                <td data-label="Submitted">{when(v.submittedAt)}</td>
                <td data-label="Approved">{when(v.approvedAt)}</td>
                <td data-label="Changelog" class="changelog">
                  {v.changelog}
                </td>
              </tr>
            ))}
          </tbody>
        </TableWrap>
      )}
    </section>
  );
}

function Installs({
  extensionId,
  installs,
  versions,
  onChange,
}: {
  extensionId: string;
  installs: InstallStatistics;
  versions: Version[];
  onChange(): void;
}) {
  const [count, setCount] = useState("1");
  const [versionId, setVersionId] = useState("");
  const action = useAction();
  const form = useFieldCheck("InstallChange");
  const labelOf = (id: string) => versions.find((v) => v.id === id)?.version ?? id;
  const max = Math.max(1, ...Object.values(installs.byVersion));
  const simulate = (what: "installs" | "uninstalls") => {
    action.clear();
    // The API counts one when `count` is absent; this form always sends the number it shows.
    if (!form.check({ count: { id: "inst-count", label: "How many", value: count, required: true } })) return;
    return action.run(
      async () => {
        const options = {
          params: { path: { id: extensionId } },
          body: { count: Number(count), ...(versionId ? { versionId } : {}) },
        };
        await admin((c) =>
          what === "installs"
            ? c.POST("/_emulator/extensions/{id}/installs", options)
            : c.POST("/_emulator/extensions/{id}/uninstalls", options),
        );
        onChange();
      },
      what === "installs" ? "Installs recorded." : "Uninstalls recorded.",
    );
  };
  return (
    <section aria-labelledby="installs-h">
      <h2 id="installs-h">Installs</h2>
      <p>
        Total <strong>{installs.total}</strong> · active <strong>{installs.active}</strong>
      </p>
      <figure class="bars">
        <figcaption>Active installs by version</figcaption>
        {Object.keys(installs.byVersion).length === 0 ? (
          <p class="muted">No active installs.</p>
        ) : (
          <ul>
            {Object.entries(installs.byVersion).map(([id, n]) => (
              <li key={id}>
                <span class="bar-label">{labelOf(id)}</span>
                {/* An SVG attribute, not a style attribute: the page's policy refuses inline styles. */}
                <svg class="bar" viewBox="0 0 100 1" preserveAspectRatio="none" aria-hidden="true">
                  <rect width={Math.max(2, (n / max) * 100)} height="1" />
                </svg>
                <span class="bar-value">{n}</span>
              </li>
            ))}
          </ul>
        )}
      </figure>
      <form
        class="inline"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void simulate("installs");
        }}
      >
        <span class="pair">
          <label for="inst-count">How many</label>
          <input
            id="inst-count"
            type="number"
            min={1}
            value={count}
            onInput={(e) => setCount(e.currentTarget.value)}
            {...invalidProps("inst-count-error", form.problems.count)}
          />
        </span>
        <span class="pair">
          <label for="inst-version">Version</label>
          <select id="inst-version" value={versionId} onChange={(e) => setVersionId(e.currentTarget.value)}>
            <option value="">current version</option>
            {versions
              .filter((v) => v.status === "approved")
              .map((v) => (
                <option key={v.id} value={v.id}>
                  {v.version}
                </option>
              ))}
          </select>
        </span>
        <button type="submit" disabled={action.busy}>
          Simulate installs
        </button>
        <button type="button" class="secondary" disabled={action.busy} onClick={() => void simulate("uninstalls")}>
          Simulate uninstalls
        </button>
        <FieldError id="inst-count-error" problem={form.problems.count} />
      </form>
      <Status message={action.message} />
    </section>
  );
}

function Secrets({
  account,
  extensionId,
  names,
  onChange,
}: {
  account: string;
  extensionId: string;
  names: string[];
  onChange(): void;
}) {
  const [name, setName] = useState("");
  const [value, setValue] = useState("");
  const action = useAction();
  const form = useFieldCheck("SecretValue");
  return (
    <section aria-labelledby="secrets-h">
      <h2 id="secrets-h">Secrets</h2>
      <p class="muted">Values are write-only: the API never returns them.</p>
      {names.length === 0 ? (
        <p>No secrets.</p>
      ) : (
        <ul class="plain">
          {names.map((n) => (
            <li key={n}>
              <code>{n}</code>{" "}
              <button
                type="button"
                class="danger small"
                aria-label={`Delete secret ${n}`}
                onClick={() =>
                  action.run(async () => {
                    await asAccount(account, (api) =>
                      api.DELETE("/developer/v1/extensions/{id}/secrets/{key}", {
                        params: { path: { id: extensionId, key: n } },
                      }),
                    );
                    onChange();
                  }, `Secret ${n} deleted.`)
                }
              >
                Delete
              </button>
            </li>
          ))}
        </ul>
      )}
      <form
        class="inline"
        noValidate
        onSubmit={async (e) => {
          e.preventDefault();
          action.clear();
          const valid = form.check({
            // The name travels in the path: its rule is the path parameter's.
            key: { id: "secret-name", label: "Name", value: name, schema: SECRET_PATH_PARAMS },
            value: { id: "secret-value", label: "Value", value },
          });
          if (!valid) return;
          const ok = await action.run(async () => {
            await asAccount(account, (api) =>
              api.PUT("/developer/v1/extensions/{id}/secrets/{key}", {
                params: { path: { id: extensionId, key: name } },
                body: { value },
              }),
            );
            onChange();
          }, `Secret ${name} set.`);
          setValue("");
          if (ok) setName("");
        }}
      >
        <span class="pair">
          <label for="secret-name">Name</label>
          <input
            id="secret-name"
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
            {...invalidProps("secret-name-error", form.problems.key)}
          />
        </span>
        <span class="pair">
          <label for="secret-value">Value</label>
          <input
            id="secret-value"
            type="password"
            autocomplete="new-password"
            value={value}
            onInput={(e) => setValue(e.currentTarget.value)}
            {...invalidProps("secret-value-error", form.problems.value)}
          />
        </span>
        <button type="submit" disabled={action.busy}>
          Set secret
        </button>
        <FieldError id="secret-name-error" problem={form.problems.key} />
        <FieldError id="secret-value-error" problem={form.problems.value} />
      </form>
      <Status message={action.message} />
    </section>
  );
}

function Danger({ account, extensionId, onDeleted }: { account: string; extensionId: string; onDeleted(): void }) {
  const [confirm, setConfirm] = useState(false);
  const [error, setError] = useState<string | null>(null);
  return (
    <section aria-labelledby="danger-h" class="danger-zone">
      <h2 id="danger-h">Delete the extension</h2>
      {!confirm ? (
        <button type="button" class="danger" onClick={() => setConfirm(true)}>
          Delete…
        </button>
      ) : (
        <p>
          Delete it with its versions, secrets and installs?{" "}
          <button
            type="button"
            class="danger"
            onClick={async () => {
              try {
                await asAccount(account, (api) =>
                  api.DELETE("/developer/v1/extensions/{id}", { params: { path: { id: extensionId } } }),
                );
                onDeleted();
              } catch (e) {
                const explain =
                  e instanceof ApiCallError && e.status === 409
                    ? " The platform deletes an extension only if it has never been publicly listed (approved while public); this one was, so it stays: make it private or unlisted instead."
                    : "";
                setError(
                  `${e instanceof ApiCallError ? `${e.status} ${e.code}: ` : ""}${(e as Error).message}${explain}`,
                );
                setConfirm(false);
              }
            }}
          >
            Yes, delete
          </button>{" "}
          <button type="button" class="secondary" onClick={() => setConfirm(false)}>
            Cancel
          </button>
        </p>
      )}
      <div role="status" aria-live="polite">
        {error && <p class="note error">{error}</p>}
      </div>
    </section>
  );
}
