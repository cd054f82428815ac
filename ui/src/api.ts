/**
 * The dashboard's only way to the server: HTTP. The control plane (/_emulator) as the admin; the developer
 * API (/developer/v1) as an account, with that account's "dashboard" key (POST
 * /_emulator/accounts/:id/dashboard-key). Every rule is the server's: a refusal comes back as the API's
 * own error envelope and is shown as it is.
 */
export const CONTROL = "/_emulator";
export const API = "/developer/v1";
const TOKEN_KEY = "ext-dashboard-admin-token";

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: { field?: string; path?: string; message: string }[] = [],
  ) {
    super(message);
  }
}

/** Off loopback the control plane needs the admin token: asked once, kept for this tab only, sent as a header. */
export const adminToken = {
  get: () => sessionStorage.getItem(TOKEN_KEY),
  set: (token: string) => sessionStorage.setItem(TOKEN_KEY, token),
  clear: () => sessionStorage.removeItem(TOKEN_KEY),
};

type Listener = () => void;
const tokenListeners = new Set<Listener>();
export const onTokenNeeded = (listener: Listener) => {
  tokenListeners.add(listener);
  return () => tokenListeners.delete(listener);
};

async function send<T>(url: string, init: RequestInit & { json?: unknown }, authorization: string | null): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (authorization) headers.authorization = authorization;
  let body = init.body;
  if (init.json !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(init.json);
  }
  const res = await fetch(url, { ...init, headers, body, credentials: "omit" });
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  let parsed: { error?: { code?: string; message?: string; details?: ApiFailure["details"] } } | undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON
  }
  if (!res.ok) {
    const e = parsed?.error;
    if (res.status === 401 && url.startsWith(CONTROL)) for (const l of tokenListeners) l();
    throw new ApiFailure(
      res.status,
      e?.code ?? "http_error",
      e?.message ?? `${res.status} ${res.statusText}`,
      e?.details ?? [],
    );
  }
  return parsed as T;
}

const bearer = (token: string | null) => (token ? `Bearer ${token}` : null);

export function admin<T>(method: string, path: string, json?: unknown): Promise<T> {
  return send<T>(CONTROL + path, { method, ...(json !== undefined ? { json } : {}) }, bearer(adminToken.get()));
}

const dashboardKeys = new Map<string, Promise<string>>();

/** The account's dashboard key, fetched once per page load (and again if it stops working). */
function keyOf(accountId: string): Promise<string> {
  let key = dashboardKeys.get(accountId);
  if (!key) {
    key = admin<{ plaintext: string }>("POST", `/accounts/${encodeURIComponent(accountId)}/dashboard-key`).then(
      (r) => r.plaintext,
    );
    key.catch(() => dashboardKeys.delete(accountId));
    dashboardKeys.set(accountId, key);
  }
  return key;
}

/** A developer-API call as `accountId`. */
export async function asAccount<T>(accountId: string, method: string, path: string, json?: unknown): Promise<T> {
  const call = async () =>
    send<T>(API + path, { method, ...(json !== undefined ? { json } : {}) }, bearer(await keyOf(accountId)));
  try {
    return await call();
  } catch (e) {
    // The dashboard key was revoked (or wiped by a reset): get a new one, once.
    if (e instanceof ApiFailure && e.status === 401) {
      dashboardKeys.delete(accountId);
      return call();
    }
    throw e;
  }
}

export const forgetDashboardKeys = () => dashboardKeys.clear();

/** A sound of a bundle as a blob URL: fetched with the admin header, so it works off loopback too. */
export async function soundUrl(versionId: string, path: string): Promise<string> {
  const headers: Record<string, string> = {};
  const token = adminToken.get();
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(
    `${CONTROL}/versions/${encodeURIComponent(versionId)}/sound?path=${encodeURIComponent(path)}`,
    { headers, credentials: "omit" },
  );
  if (!res.ok) throw new ApiFailure(res.status, "http_error", `The sound could not be loaded (${res.status}).`);
  return URL.createObjectURL(await res.blob());
}

/** The live request log: fetch + a stream reader, since EventSource cannot send the admin header. */
export function streamRequests(onEntry: (entry: RequestEntry) => void, onState: (live: boolean) => void): () => void {
  const controller = new AbortController();
  const run = async () => {
    const headers: Record<string, string> = { accept: "text/event-stream" };
    const token = adminToken.get();
    if (token) headers.authorization = `Bearer ${token}`;
    const res = await fetch(`${CONTROL}/requests/stream?recent=200`, {
      headers,
      signal: controller.signal,
      credentials: "omit",
    });
    if (!res.ok || !res.body) throw new Error(`stream ${res.status}`);
    onState(true);
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = event.split("\n").find((line) => line.startsWith("data: "));
        if (data) onEntry(JSON.parse(data.slice(6)) as RequestEntry);
      }
    }
  };
  run()
    .catch(() => undefined)
    .finally(() => onState(false));
  return () => controller.abort();
}

// ---- Shapes of the answers the dashboard reads ----------------------------------------------------
export interface Account {
  id: string;
  name: string;
  createdAt: string;
  extensions: number;
  activeApiKeys: number;
}
export interface ApiKey {
  id: string;
  accountId: string;
  name: string;
  keyPrefix: string;
  scopes: string[];
  createdAt: string;
  revokedAt: string | null;
  lastUsedAt?: string | null;
}
export interface Clock {
  now: string;
  mode: "real" | "frozen";
  offsetMs: number;
}
export interface State {
  counts: Record<string, number>;
  faults: number;
  requestsLogged: number;
  rateLimits: boolean;
  autoApproveMs: number | null;
  clock: Clock;
}
export interface ExtensionItem {
  id: string;
  slug: string;
  name: string;
  visibility: string;
  status: string;
  installCount: number;
  currentVersionId: string | null;
  createdAt: string;
  updatedAt: string;
}
export interface Extension extends ExtensionItem {
  short_description: string;
  description: string;
  pricing: { type: string };
  ratingCount: number;
}
export interface Version {
  id: string;
  version: string;
  status: string;
  changelog: string;
  bundleSizeBytes: number;
  submittedAt: string;
  approvedAt?: string;
}
export interface InstallStats {
  total: number;
  active: number;
  byVersion: Record<string, number>;
}
export interface BundleFile {
  path: string;
  size: number;
  audio: string | null;
}
export interface Bundle {
  versionId: string;
  extensionId: string;
  accountId: string;
  version: string;
  status: string;
  bundleSizeBytes: number;
  bundleSha256: string;
  soundCount: number;
  warnings: string[];
  files: BundleFile[];
  truncated: boolean;
  manifest: unknown;
}
export interface LimitRow {
  key: string;
  category: string;
  description: string;
  unit: string;
  value: number;
  source: string;
  default: number;
  hardMax: number | null;
  usage: number | null;
}
export interface LimitRequest {
  id: string;
  accountId: string;
  scope: "account" | "extension";
  extensionId: string | null;
  limits: Record<string, number>;
  reason: string;
  status: string;
  decisionReason: string | null;
  createdAt: string;
  decidedAt: string | null;
}
export interface QueueItem {
  versionId: string;
  version: string;
  changelog: string;
  bundleSizeBytes: number;
  soundCount: number;
  warnings: string[];
  submittedAt: string;
  extensionId: string;
  extensionName: string;
  accountId: string;
}
export interface Fault {
  id: string;
  method: string | null;
  path: string;
  status: number | null;
  code: string | null;
  message: string | null;
  latencyMs: number;
  times: number | null;
  probability: number;
  fired: number;
  createdAt: string;
}
export interface RequestEntry {
  id: number;
  method: string;
  path: string;
  status: number;
  accountId: string | null;
  keyId: string | null;
  durationMs: number;
  at: string;
}
export interface RequestDetail extends RequestEntry {
  detail: {
    query: string;
    requestHeaders: Record<string, string>;
    requestBody: string | null;
    requestBodyNote: string | null;
    responseHeaders: Record<string, string>;
    responseBody: string | null;
  };
}
