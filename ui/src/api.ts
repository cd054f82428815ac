/**
 * The dashboard's way to the server: the typed clients of client/. The control plane (/_emulator) as the
 * admin; the developer API (/developer/v1) as an account, with that account's "dashboard" key (POST
 * /_emulator/accounts/:id/dashboard-key). Every rule is the server's: a refusal comes back as the API's own
 * error envelope (an ApiCallError) and is shown as it is.
 */
import {
  type AdminClient,
  type ApiClient,
  type CallResult,
  createAdminClient,
  createApiClient,
  type Fixture,
  type RequestLogEntry,
  readEvents,
  SESSION_HEADER,
  unwrap,
} from "../../client";
import { DOCS_KEY_STORAGE, SESSION_FRAGMENT, SESSION_STORAGE_KEY } from "../../common/dashboard-links";

export type {
  Account,
  ApiKey,
  BundleContents,
  ClockChange,
  ClockState,
  EmulatorState,
  Extension,
  ExtensionSummary,
  ExtensionUpdate,
  FaultRule,
  FaultRuleInput,
  Fixture,
  InstallStatistics,
  LimitRequest,
  RequestLogDetail,
  RequestLogEntry,
  ReviewQueueItem,
  ScopeLimitUsageRow,
  SeedReport,
  Version,
} from "../../client";
export { type AdminClient, ApiCallError } from "../../client";

/** What `POST /_emulator/seed` takes an export archive as. */
export const EXPORT_MEDIA_TYPE = "application/x-tar";

/**
 * The control plane takes this page's session secret, sent as a header. The page never asks for the admin token:
 * a stale tab reloaded after its server stopped is served by whoever holds the port then, and a page that asked
 * for the token there would send it to them (so no page of ours asks: one that does is not this dashboard). A
 * login (`ext dashboard`) redirects to `/#session=<secret>`: the secret leaves the address
 * bar before the router reads the hash, and moves into this origin's localStorage (scheme, host and port: no
 * page on another port can read it; shared by this browser's tabs of this emulator, as a login should be) once
 * the server has accepted it. Until then it is only a candidate: any page can open `/#session=junk`, and that
 * must not log out the session this browser has. A session lasts as long as the server runs; a refused one
 * is dropped.
 */
let candidateSession = location.hash.startsWith(`#${SESSION_FRAGMENT}`)
  ? location.hash.slice(SESSION_FRAGMENT.length + 1)
  : null;
if (candidateSession !== null) history.replaceState(history.state, "", location.pathname + location.search);

export const dashboardSession = {
  get: () => candidateSession ?? localStorage.getItem(SESSION_STORAGE_KEY),
  clear: () => localStorage.removeItem(SESSION_STORAGE_KEY),
};

/** The server's word on the session a request carried: a candidate is kept, or dropped for the stored one. */
function judgeSession(sent: string, accepted: boolean): "retry" | "refused" | "ok" {
  if (sent === candidateSession) {
    candidateSession = null;
    if (accepted) localStorage.setItem(SESSION_STORAGE_KEY, sent);
    else if (localStorage.getItem(SESSION_STORAGE_KEY) !== null) return "retry";
  } else if (!accepted && sent === localStorage.getItem(SESSION_STORAGE_KEY)) dashboardSession.clear();
  return accepted ? "ok" : "refused";
}

type Listener = () => void;
const loginListeners = new Set<Listener>();
/** This browser is not logged in to this server (a control-plane call was refused before any session worked). */
export const onLoginNeeded = (listener: Listener) => {
  loginListeners.add(listener);
  return () => loginListeners.delete(listener);
};

/**
 * A session this page had accepted, then refused, or a request that no longer reaches the server: the server that
 * accepted it has stopped (a restart draws a new address, so this origin is over). Whatever answers here next may
 * be another program on the port: this page sends it nothing more — no session, no key, nothing typed.
 */
let serverEnded = false;
let sessionAccepted = false;
const endedListeners = new Set<Listener>();
export const onServerEnded = (listener: Listener) => {
  endedListeners.add(listener);
  return () => endedListeners.delete(listener);
};
const ended = () => new Error("this dashboard's server has stopped: run `ext dashboard` to log in at its new address");
function endServer() {
  if (serverEnded) return;
  serverEnded = true;
  for (const l of endedListeners) l();
}

/**
 * Every request of this page, both clients': none once its server has ended, and one that cannot reach the server
 * after a session worked ends it (the port is free for anyone until the next request would find out).
 */
async function pageFetch(request: Request): Promise<Response> {
  if (serverEnded) throw ended();
  try {
    return await fetch(request);
  } catch (e) {
    if (sessionAccepted && !request.signal.aborted) endServer();
    throw e;
  }
}

// The page is served by the emulator: same origin, so the clients' base URL is "".
const control = createAdminClient({
  url: "",
  session: () => dashboardSession.get(),
  fetch: pageFetch,
});
control.use({
  onResponse({ request, response }) {
    const sent = request.headers.get(SESSION_HEADER);
    const verdict = sent === null ? null : judgeSession(sent, response.status !== 401);
    if (verdict === "ok") sessionAccepted = true;
    // A refused candidate with a login already stored: this page loads again with the stored one.
    if (verdict === "retry") location.reload();
    else if (response.status === 401 && sessionAccepted) endServer();
    else if (response.status === 401) for (const l of loginListeners) l();
  },
});

/** A control-plane call: its data, or its refusal thrown. */
export async function admin<D>(call: (client: AdminClient) => Promise<CallResult<D>>): Promise<D> {
  return unwrap(await call(control));
}

const dashboardKeys = new Map<string, Promise<{ key: string; client: ApiClient }>>();

/**
 * The account's dashboard key and a developer-API client holding it, fetched once per page load (and again if
 * it stops working). The client names itself (`X-Ext-Client: dashboard`), so the Requests page can tell its
 * calls from the CLI's, which acts with the same key.
 */
function dashboardKeyOf(accountId: string): Promise<{ key: string; client: ApiClient }> {
  let entry = dashboardKeys.get(accountId);
  if (!entry) {
    entry = admin((c) =>
      c.POST("/_emulator/accounts/{accountId}/dashboard-key", { params: { path: { accountId } } }),
    ).then((r) => ({
      key: r.plaintext,
      client: createApiClient({ baseUrl: "", apiKey: r.plaintext, clientName: "dashboard", fetch: pageFetch }),
    }));
    entry.catch(() => dashboardKeys.delete(accountId));
    dashboardKeys.set(accountId, entry);
  }
  return entry;
}

const clientOf = (accountId: string) => dashboardKeyOf(accountId).then((e) => e.client);

/**
 * Before this tab goes to /docs: the account's dashboard key, for the reference's "try it", in this tab's
 * sessionStorage (server/docs/page-extras.ts reads it; the docs page's policy keeps it on this origin). Without
 * an account, or if the key cannot be had, any earlier one is removed and /docs opens with none.
 */
export async function handKeyToDocs(accountId: string): Promise<void> {
  sessionStorage.removeItem(DOCS_KEY_STORAGE);
  if (!accountId) return;
  const key = await dashboardKeyOf(accountId).then(
    (e) => e.key,
    () => null,
  );
  if (key) sessionStorage.setItem(DOCS_KEY_STORAGE, key);
}

/** A developer-API call as `accountId`. */
export async function asAccount<D>(accountId: string, call: (client: ApiClient) => Promise<CallResult<D>>): Promise<D> {
  if (!accountId) throw new Error("No account is selected.");
  const result = await call(await clientOf(accountId));
  // The dashboard key was revoked (or wiped by a reset): get a new one, once.
  if (result.response.status === 401) {
    dashboardKeys.delete(accountId);
    return unwrap(await call(await clientOf(accountId)));
  }
  return unwrap(result);
}

export const forgetDashboardKeys = () => dashboardKeys.clear();

/** The whole state as the archive `GET /_emulator/export` writes (fixture.json and the bundles). */
export const exportArchive = (includeSecretValues: boolean) =>
  admin((c) =>
    c.GET("/_emulator/export", {
      params: { query: includeSecretValues ? { includeSecretValues: true } : {} },
      parseAs: "blob",
    }),
  );

/** Loads an export archive (.tar) through `POST /_emulator/seed`, as `ext seed DIR` does. */
export const seedArchive = (archive: Blob) =>
  admin((c) =>
    c.POST("/_emulator/seed", {
      // The document types this body as the JSON fixture; the serializer sends the archive's bytes instead.
      body: {} as Fixture,
      bodySerializer: () => archive,
      headers: { "content-type": EXPORT_MEDIA_TYPE },
    }),
  );

/** A fixture (parsed JSON) through `POST /_emulator/seed`; the server checks it whole and names each bad field. */
export const seedFixture = (fixture: Fixture) => admin((c) => c.POST("/_emulator/seed", { body: fixture }));

/** A sound of a bundle as a blob URL: fetched with the admin header, so it works off loopback too. */
export async function soundUrl(versionId: string, path: string): Promise<string> {
  const blob = await admin((c) =>
    c.GET("/_emulator/versions/{versionId}/sound", {
      params: { path: { versionId }, query: { path } },
      parseAs: "blob",
    }),
  );
  return URL.createObjectURL(blob);
}

/**
 * The live request log, through the one SSE reader. Returns a function that stops it. The server ends a live
 * stream when it stops (or, rarely, drops a tab that left too much unread): either way this tab ends there, as
 * `ext logs --follow` does, before anyone who takes the port can be sent its next request.
 */
export function streamRequests(
  onEntry: (entry: RequestLogEntry) => void,
  onState: (live: boolean) => void,
): () => void {
  const controller = new AbortController();
  let established = false;
  const run = async () => {
    const result = await control.GET("/_emulator/requests/stream", {
      params: { query: { recent: 200 } },
      headers: { accept: "text/event-stream" },
      parseAs: "stream",
      signal: controller.signal,
    });
    unwrap(result);
    established = true;
    onState(true);
    for await (const entry of readEvents<RequestLogEntry>(result.response)) onEntry(entry);
  };
  run()
    .catch(() => undefined)
    .finally(() => {
      onState(false);
      if (established && !controller.signal.aborted && sessionAccepted) endServer();
    });
  return () => controller.abort();
}
