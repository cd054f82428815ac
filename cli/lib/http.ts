/**
 * How the CLI calls the server: through client/ (the typed clients bound here to a target), with what the
 * CLI adds on top: a 429 is retried after its Retry-After, a bounded number of times; a server that does
 * not answer is named with a hint; the server's error code and message are shown as they are (api-error.ts).
 */
import {
  type AdminClient,
  type ApiClient,
  type CallResult,
  createAdminClient,
  createApiClient,
  unwrap,
} from "../../client";
import { API_PREFIX, CONTROL_PREFIX, DEPLOY_LIMITS_PREFIX } from "../../src/config";
import { describeForeign, recordRefusal } from "./api-error";
import { UsageError } from "./runner";

type Middleware = Parameters<ApiClient["use"]>[number];

/** Nothing answered (connection refused, DNS, reset). */
class UnreachableError extends Error {
  override name = "UnreachableError";
}

/** Server addresses derived from the one base URL the user gives. */
export interface Endpoints {
  /** http://host:port, no trailing slash. */
  root: string;
  /** …/developer/v1 */
  baseUrl: string;
  /** …/_emulator */
  adminUrl: string;
  /** The limits path the spec gives the deploy tool: …/v1/developer/extensions/{id}/limits */
  limitsUrl(extensionId: string): string;
  /** What to say when nothing answers there, if more is known than "is the emulator running?". */
  unreachableHint?: string;
}

/** From a developer API base URL, which must end in /developer/v1 (spec §1). */
export function endpointsFromBaseUrl(baseUrl: string): Endpoints {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new UsageError(`target "${baseUrl}" is not a URL (expected e.g. http://127.0.0.1:4780${API_PREFIX})`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new UsageError(`target "${baseUrl}" must be an http or https URL`);
  const path = url.pathname.replace(/\/+$/, "");
  if (!path.endsWith(API_PREFIX)) throw new UsageError(`target "${baseUrl}" must end in ${API_PREFIX}`);
  const root = url.origin + path.slice(0, -API_PREFIX.length);
  return endpoints(root);
}

/** From any of: the server root, the API base (…/developer/v1) or the control plane (…/_emulator). */
export function endpointsFromAnyUrl(target: string): Endpoints {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new UsageError(`target "${target}" is not a URL (expected e.g. http://127.0.0.1:4780)`);
  }
  let path = url.pathname.replace(/\/+$/, "");
  for (const suffix of [API_PREFIX, CONTROL_PREFIX]) if (path.endsWith(suffix)) path = path.slice(0, -suffix.length);
  return endpoints(url.origin + path);
}

function endpoints(root: string): Endpoints {
  return {
    root,
    baseUrl: root + API_PREFIX,
    adminUrl: root + CONTROL_PREFIX,
    limitsUrl: (id) => `${root}${DEPLOY_LIMITS_PREFIX}/extensions/${encodeURIComponent(id)}/limits`,
  };
}

/** A failed connection becomes one line naming the server; a cut request keeps its signal's reason. */
const unreachable = (hint = "is the emulator running?"): Middleware => ({
  onError({ request, error }) {
    if (request.signal.aborted) return request.signal.reason instanceof Error ? request.signal.reason : undefined;
    return new UnreachableError(
      `cannot reach ${new URL(request.url).origin} (${(error as Error)?.message ?? String(error)}); ${hint}`,
    );
  },
});

/**
 * A success that is an HTML page is another server's (a web server or dev server on that port, a login
 * page): the API never answers HTML. Said as such instead of a JSON parse error.
 */
const htmlIsForeign: Middleware = {
  async onResponse({ request, response }) {
    if (!response.ok || !/text\/html/i.test(response.headers.get("content-type") ?? "")) return undefined;
    throw new Error(
      describeForeign({
        url: response.url || request.url,
        method: request.method,
        status: response.status,
        contentType: response.headers.get("content-type") ?? "",
        server: response.headers.get("server") ?? "",
        body: await response.text(),
      }),
    );
  },
};

/** The developer API at `endpoints`, as `apiKey`. */
export function apiClient(endpoints: Endpoints, apiKey: string): ApiClient {
  const client = createApiClient({ baseUrl: endpoints.root, apiKey });
  client.use(unreachable(endpoints.unreachableHint), htmlIsForeign);
  return client;
}

/** The control plane at `endpoints`, every call carrying the token (null only for the challenge and an open control plane). */
export function adminClient(endpoints: Endpoints, adminToken: string | null): AdminClient {
  const client = createAdminClient({ url: endpoints.root, adminToken });
  client.use(unreachable(endpoints.unreachableHint), htmlIsForeign);
  return client;
}

export interface CallOptions {
  /** How many times a 429 is retried after its Retry-After (default 3). */
  retries?: number;
  /** Told before each wait, e.g. to print "rate limited, retrying in 4 s". */
  onRetry?: (seconds: number, attempt: number) => void;
  /** Longest single Retry-After honoured, in seconds (default 120). */
  maxWaitSeconds?: number;
  /** Cuts a Retry-After wait short (the call then throws the signal's reason); give it to the request too. */
  signal?: AbortSignal;
}

/** Bun.sleep that an abort signal ends early, rejecting with its reason. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (!signal) return Bun.sleep(ms);
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Sends (again after each 429, so a body is built afresh: a stream can be read only once) and returns the
 * successful result; a refusal is thrown as an ApiCallError.
 */
export async function send<D>(request: () => Promise<CallResult<D>>, opts: CallOptions = {}): Promise<CallResult<D>> {
  const retries = opts.retries ?? 3;
  for (let attempt = 0; ; attempt++) {
    let result: CallResult<D>;
    try {
      result = await request();
    } catch (e) {
      // Cut while its answer was being read: the reason the caller gave, as for a cut connection.
      if (opts.signal?.aborted) throw opts.signal.reason;
      throw e;
    }
    const { response } = result;
    if (response.ok) return result;
    if (response.status === 429 && attempt < retries) {
      const retryAfter = Number(response.headers.get("retry-after")) || 1;
      const wait = Math.min(Math.max(retryAfter, 1), opts.maxWaitSeconds ?? 120);
      opts.onRetry?.(wait, attempt + 1);
      await sleep(wait * 1000, opts.signal);
      continue;
    }
    try {
      unwrap(result);
    } catch (e) {
      throw recordRefusal(e, result.error, response);
    }
    return result;
  }
}

/** The answer's data (see `send`). */
export async function call<D>(request: () => Promise<CallResult<D>>, opts: CallOptions = {}): Promise<D> {
  return (await send(request, opts)).data as D;
}
