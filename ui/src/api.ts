/**
 * The dashboard's way to the server: the typed clients of client/. The control plane (/_emulator) as the
 * admin; the developer API (/developer/v1) as an account, with that account's "dashboard" key (POST
 * /_emulator/accounts/:id/dashboard-key). Every rule is the server's: a refusal comes back as the API's own
 * error envelope (an ApiCallError) and is shown as it is.
 */
import {
  type AdminClient,
  ApiCallError,
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
import { DOCS_KEY_STORAGE, LOGIN_PATH, SESSION_FRAGMENT, SESSION_STORAGE_KEY } from "../../common/dashboard-links";

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
 * The control plane takes this page's session secret, sent as a header. An admin token typed in is traded at
 * once for a session (exchangeAdminToken) and kept nowhere: a token left in a tab would outlive the server and
 * go, from a stale tab, to whoever holds its port next. A login redirects to `/#session=<secret>`: the secret leaves the address
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

/** A refused exchange as the API's own error, whatever the answer's body was. */
function callError(response: Response, body: unknown): ApiCallError {
  const envelope = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  return new ApiCallError({
    status: response.status,
    code: typeof envelope?.code === "string" ? envelope.code : "login_refused",
    message:
      typeof envelope?.message === "string" ? envelope.message : `The server refused the login (${response.status}).`,
    method: "POST",
    path: LOGIN_PATH,
  });
}

/**
 * Trades a typed admin token for a session of this server (`POST /dashboard/login` with the token in its
 * Authorization header, asking for JSON): the session is kept as a login's is, and the token, used for this one
 * request, is kept nowhere. A refusal is thrown as the API's own error.
 */
export async function exchangeAdminToken(token: string): Promise<void> {
  if (serverEnded) throw ended();
  const response = await fetch(LOGIN_PATH, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, accept: "application/json" },
    credentials: "omit",
    redirect: "error",
  });
  const body = (await response.json().catch(() => null)) as { session?: unknown } | null;
  if (!response.ok || typeof body?.session !== "string") throw callError(response, body);
  candidateSession = null;
  sessionAccepted = true;
  localStorage.setItem(SESSION_STORAGE_KEY, body.session);
}

type Listener = () => void;
const tokenListeners = new Set<Listener>();
export const onTokenNeeded = (listener: Listener) => {
  tokenListeners.add(listener);
  return () => tokenListeners.delete(listener);
};

/**
 * A session this page had accepted, refused now: the server that accepted it has stopped (a restart draws a new
 * address, so this origin is over). Whatever answers here now may be another program on the port: this page
 * sends it nothing more — no session, and never an admin token (no token screen is offered).
 */
let serverEnded = false;
let sessionAccepted = false;
const endedListeners = new Set<Listener>();
export const onServerEnded = (listener: Listener) => {
  endedListeners.add(listener);
  return () => endedListeners.delete(listener);
};
const ended = () => new Error("this dashboard's server has stopped: run `ext dashboard` to log in at its new address");

// The page is served by the emulator: same origin, so the clients' base URL is "".
const control = createAdminClient({
  url: "",
  session: () => dashboardSession.get(),
});
control.use({
  onRequest() {
    if (serverEnded) throw ended();
  },
  onResponse({ request, response }) {
    const sent = request.headers.get(SESSION_HEADER);
    const verdict = sent === null ? null : judgeSession(sent, response.status !== 401);
    if (verdict === "ok") sessionAccepted = true;
    // A refused candidate with a login already stored: this page loads again with the stored one.
    if (verdict === "retry") location.reload();
    else if (response.status === 401 && sessionAccepted) {
      serverEnded = true;
      for (const l of endedListeners) l();
    } else if (response.status === 401) for (const l of tokenListeners) l();
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
      client: createApiClient({ baseUrl: "", apiKey: r.plaintext, clientName: "dashboard" }),
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

/** The live request log, through the one SSE reader. Returns a function that stops it. */
export function streamRequests(
  onEntry: (entry: RequestLogEntry) => void,
  onState: (live: boolean) => void,
): () => void {
  const controller = new AbortController();
  const run = async () => {
    const result = await control.GET("/_emulator/requests/stream", {
      params: { query: { recent: 200 } },
      headers: { accept: "text/event-stream" },
      parseAs: "stream",
      signal: controller.signal,
    });
    unwrap(result);
    onState(true);
    for await (const entry of readEvents<RequestLogEntry>(result.response)) onEntry(entry);
  };
  run()
    .catch(() => undefined)
    .finally(() => onState(false));
  return () => controller.abort();
}
