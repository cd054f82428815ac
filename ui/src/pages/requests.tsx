import { useEffect, useState } from "preact/hooks";
import { printable } from "../../../common/text/printable";
import { type ApiKey, admin, type RequestLogEntry, streamRequests } from "../api";
import { Loading, TableHead, TableWrap, useTitle, when } from "../components";
import { useLoad } from "../hooks";
import type { PageProps } from "../page";
import { go, href } from "../router";
import { RequestChart } from "./request-chart";

/** As many rows as the server keeps. */
const KEEP = 500;
/** Key names are looked up for at most this many accounts. */
const KEY_LOOKUP_ACCOUNTS = 50;

/** key id → key name, for every account's keys: which key made a request. */
function useKeyNames(accountIds: string[], entries: RequestLogEntry[]): Map<string, string> {
  const [names, setNames] = useState(new Map<string, string>());
  const unknown = [...new Set(entries.filter((e) => e.keyId !== null && !names.has(e.keyId)).map((e) => e.keyId))]
    .sort()
    .join(",");
  useEffect(() => {
    if (unknown === "") return;
    let live = true;
    Promise.all(
      accountIds.slice(0, KEY_LOOKUP_ACCOUNTS).map((id) =>
        admin((c) => c.GET("/_emulator/accounts/{accountId}/keys", { params: { path: { accountId: id } } })).then(
          (r) => r.apiKeys,
          () => [] as ApiKey[],
        ),
      ),
    ).then((lists) => live && setNames(new Map(lists.flat().map((k) => [k.id, k.name]))));
    return () => {
      live = false;
    };
    // Looked up again only when requests come from a key not seen yet.
  }, [unknown, accountIds.join(",")]);
  return names;
}

/** #/requests/<id> opens a request's detail: a reload or a shared link shows the same one. */
export function RequestsPage({ accounts, route }: PageProps) {
  const [entries, setEntries] = useState<RequestLogEntry[]>([]);
  const [live, setLive] = useState(false);
  const [filter, setFilter] = useState({ account: "", method: "", path: "", status: "" });
  const open = route[1] !== undefined && /^\d{1,15}$/.test(route[1]) ? Number(route[1]) : null;
  useTitle(open === null ? "Requests" : `Request ${open}`);
  const [hideOwn, setHideOwn] = useState(true);
  const keyNames = useKeyNames(
    accounts.map((a) => a.id),
    entries,
  );
  // Marked by the page's own client: the CLI acts with the same "dashboard" key and its requests stay listed.
  const isOwn = (e: RequestLogEntry) => e.client === "dashboard";
  useEffect(
    () =>
      streamRequests(
        (entry) => setEntries((list) => (list.some((e) => e.id === entry.id) ? list : [entry, ...list].slice(0, KEEP))),
        setLive,
      ),
    [],
  );
  const matching = entries.filter(
    (e) =>
      (!filter.account || e.accountId === filter.account) &&
      (!filter.method || e.method === filter.method) &&
      (!filter.path || e.path.includes(filter.path)) &&
      (!filter.status || String(e.status).startsWith(filter.status)),
  );
  const shown = hideOwn ? matching.filter((e) => !isOwn(e)) : matching;
  const set = (k: keyof typeof filter) => (e: { currentTarget: { value: string } }) =>
    setFilter({ ...filter, [k]: e.currentTarget.value });
  return (
    <>
      <h1>Requests</h1>
      <p>
        Developer-API requests as they happen, the same stream as <code>ext logs --follow</code>:{" "}
        <span class={live ? "badge badge-approved" : "badge badge-rejected"} data-testid="live">
          {live ? "live" : "not connected"}
        </span>
      </p>
      {/* The chart counts what the table lists: the same filters, the dashboard's own calls hidden alike. */}
      <RequestChart entries={shown} />
      <form class="grid filters" onSubmit={(e) => e.preventDefault()} aria-label="Filters">
        <label for="fl-account">Account</label>
        <select id="fl-account" value={filter.account} onChange={set("account")}>
          <option value="">all</option>
          {accounts.map((a) => (
            <option key={a.id} value={a.id}>
              {a.id}
            </option>
          ))}
        </select>
        <label for="fl-method">Method</label>
        <select id="fl-method" value={filter.method} onChange={set("method")}>
          <option value="">all</option>
          {["GET", "POST", "PUT", "PATCH", "DELETE"].map((m) => (
            <option key={m}>{m}</option>
          ))}
        </select>
        <label for="fl-path">Path contains</label>
        <input id="fl-path" value={filter.path} onInput={set("path")} />
        <label for="fl-status">Status starts with</label>
        <input id="fl-status" value={filter.status} onInput={set("status")} placeholder="4" />
      </form>
      <p>
        <label class="check">
          <input type="checkbox" checked={hideOwn} onChange={(e) => setHideOwn(e.currentTarget.checked)} /> Hide the
          requests this dashboard made itself (the CLI's stay listed, even with the same key)
        </label>
      </p>
      {open !== null && <Detail id={open} onClose={() => go("requests")} />}
      <TableWrap label="Requests">
        <TableHead columns={["Time", "Request", "Status", "Account", "Key", "Duration"]} />
        <tbody>
          {shown.map((e) => (
            <tr key={e.id} data-request-path={e.path} data-client={e.client ?? undefined}>
              <td data-label="Time" class="small">
                {when(e.at)}
              </td>
              <td data-label="Request">
                <a class="request-link" href={href("requests", String(e.id))}>
                  {printable(e.method)} <BreakAtSlashes text={printable(e.path)} />
                </a>
              </td>
              <td data-label="Status">
                <span class={e.status >= 400 ? "status-bad" : "status-good"}>{e.status}</span>
                {e.errorCode && <div class="small">{e.errorCode}</div>}
              </td>
              <td data-label="Account">{e.accountId ?? "—"}</td>
              <td data-label="Key">{e.keyId ? (keyNames.get(e.keyId) ?? e.keyId) : "—"}</td>
              <td data-label="Duration">{e.durationMs} ms</td>
            </tr>
          ))}
        </tbody>
      </TableWrap>
      {shown.length === 0 && (
        <p class="muted" data-testid="requests-empty">
          {emptyNote(entries.length, matching.length)}
        </p>
      )}
    </>
  );
}

/** Why the table is empty: nothing yet, the filters, or only the dashboard's own calls (hidden) match. */
function emptyNote(all: number, matching: number): string {
  if (all === 0) return "No request yet.";
  if (matching === 0) return "No request matches the filters.";
  return `Only this dashboard's own requests match (${matching}), which are hidden: untick the box above to list them.`;
}

function Detail({ id, onClose }: { id: number; onClose(): void }) {
  const detail = useLoad(() => admin((c) => c.GET("/_emulator/requests/{id}", { params: { path: { id } } })), [id]);
  return (
    <section class="detail" aria-labelledby="detail-h">
      <h2 id="detail-h" tabIndex={-1} ref={(el) => el?.focus()}>
        Request {id}
      </h2>
      <Loading state={detail}>
        {(d) => (
          <>
            <p>
              <strong class="request-line">
                {printable(d.method)} {printable(d.path)}
                {d.detail.query ? `?${printable(d.detail.query)}` : ""}
              </strong>{" "}
              → {d.status} in {d.durationMs} ms, {when(d.at)}, account {d.accountId ?? "none"}
            </p>
            <div class="two">
              <div>
                <h3>Request</h3>
                <HeaderList headers={d.detail.requestHeaders} label="Request headers" />
                <pre tabIndex={0} aria-label="Request body">
                  <code>{d.detail.requestBody ?? d.detail.requestBodyNote ?? "(no body)"}</code>
                </pre>
              </div>
              <div>
                <h3>Response</h3>
                <HeaderList headers={d.detail.responseHeaders} label="Response headers" />
                <pre tabIndex={0} aria-label="Response body">
                  <code>{d.detail.responseBody ?? "(no body kept)"}</code>
                </pre>
              </div>
            </div>
          </>
        )}
      </Loading>
      <button type="button" class="secondary" onClick={onClose}>
        Close
      </button>
    </section>
  );
}

function HeaderList({ headers, label }: { headers: Record<string, string>; label: string }) {
  return (
    <dl class="headers" aria-label={label}>
      {Object.entries(headers).map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd>
            <code>{v}</code>
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** A path that a narrow screen wraps after a slash, never inside a segment. */
function BreakAtSlashes({ text }: { text: string }) {
  const parts = text.split("/");
  return (
    <>
      {parts.map((part, i) => (
        <span key={i}>
          {i > 0 && "/"}
          {part}
          {i < parts.length - 1 && <wbr />}
        </span>
      ))}
    </>
  );
}
