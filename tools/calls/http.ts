/**
 * How the CLI and the Bun helper's deploy call the server: through client/ (the typed clients bound here to a
 * target) over the one transport (transport.ts: the server's proof, the timeout, no redirect followed), with
 * what a tool adds on top: every answer read by one reader (answer-reader.ts); a 429 is retried after its
 * Retry-After, a bounded number of times; a server that does not answer is named with a hint; the server's
 * error code and message are shown as they are (api-error.ts).
 */
import {
  type AdminClient,
  type ApiClient,
  type CallResult,
  createAdminClient,
  createApiClient,
  unwrap,
} from "../../client";
import { API_PREFIX, CONTROL_PREFIX } from "../../common/addresses";
import { parseClientEnv } from "../config";
import { answerReader } from "./answer-reader";
import { recordRefusal } from "./api-error";
import { createTransport, requestTimeoutMs, type Transport, TransportError } from "./transport";
import { UsageError } from "./usage-error";

type Middleware = Parameters<ApiClient["use"]>[number];

/** Nothing answered (connection refused, DNS, reset). */
class UnreachableError extends Error {
  override name = "UnreachableError";
}

/** Server addresses derived from the one base URL the user gives, and the one transport to that server. */
export interface Endpoints {
  /** http://host:port, no trailing slash. */
  root: string;
  /** …/developer/v1 */
  baseUrl: string;
  /** …/_emulator */
  adminUrl: string;
  /** What to say when nothing answers there, if more is known than "is the emulator running?". */
  unreachableHint?: string;
  /** Every call to this server goes through it (transport.ts). */
  transport: Transport;
}

export interface EndpointOptions {
  /**
   * The server's admin token, when the server is to prove it holds it (a found `ext serve`, or one named
   * while the command holds a token): then no credential goes on a connection it has not proven itself on.
   */
  proveWith?: string | null;
  /** The per-request timeout; default EXT_REQUEST_TIMEOUT, else 30 s. */
  timeoutMs?: number;
}

/** The server's root (http://host:port, no trailing slash) from its root, API base or control-plane URL. */
export function rootOf(target: string): string {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new UsageError(`target "${target}" is not a URL (expected e.g. http://127.0.0.1:4780)`);
  }
  let path = url.pathname.replace(/\/+$/, "");
  for (const suffix of [API_PREFIX, CONTROL_PREFIX]) if (path.endsWith(suffix)) path = path.slice(0, -suffix.length);
  return url.origin + path;
}

/** From any of: the server root, the API base (…/developer/v1) or the control plane (…/_emulator). */
export function endpointsFromAnyUrl(target: string, options: EndpointOptions = {}): Endpoints {
  const root = rootOf(target);
  const timeoutMs = options.timeoutMs ?? requestTimeoutMs(parseClientEnv().requestTimeout);
  const proof = options.proveWith ? { adminToken: options.proveWith, url: root } : null;
  return {
    root,
    baseUrl: root + API_PREFIX,
    adminUrl: root + CONTROL_PREFIX,
    transport: createTransport({ timeoutMs, proof }),
  };
}

/** A failed connection becomes one line naming the server; a cut request keeps its signal's reason. */
const unreachable = (hint = "is the emulator running?"): Middleware => ({
  onError({ request, error }) {
    if (request.signal.aborted) return request.signal.reason instanceof Error ? request.signal.reason : undefined;
    // The transport's own errors (a timeout, a server that changed) say all there is to say.
    if (error instanceof TransportError) return error;
    return new UnreachableError(
      `cannot reach ${new URL(request.url).origin} (${(error as Error)?.message ?? String(error)}); ${hint}`,
    );
  },
});

/** The developer API at `endpoints`, as `apiKey`. */
export function apiClient(endpoints: Endpoints, apiKey: string): ApiClient {
  const client = createApiClient({ baseUrl: endpoints.root, apiKey, fetch: endpoints.transport.fetch });
  client.use(unreachable(endpoints.unreachableHint), answerReader);
  return client;
}

/** The control plane at `endpoints`, every call carrying the token (null only for the challenge and an open control plane). */
export function adminClient(endpoints: Endpoints, adminToken: string | null): AdminClient {
  const client = createAdminClient({ url: endpoints.root, adminToken, fetch: endpoints.transport.fetch });
  client.use(unreachable(endpoints.unreachableHint), answerReader);
  return client;
}

export interface CallOptions {
  /** How many times a 429 is retried after its Retry-After (default 3), within the command's wait bound. */
  retries?: number;
  /** Told before each wait; by default `retryNote` is printed on stderr (through the console, as tools/cli/output.ts does). */
  onRetry?: (seconds: number, attempt: number) => void;
  /** Cuts a Retry-After wait short (the call then throws the signal's reason); give it to the request too. */
  signal?: AbortSignal;
}

/**
 * Seconds one command may spend in all waiting out 429s (`--max-wait`, EXT_MAX_WAIT): enough for a
 * per-minute window to reset, never an hourly one. A Retry-After past what is left is not waited for: the
 * 429 is shown at once, with how to turn the emulator's limits off.
 */
export const DEFAULT_MAX_WAIT_SECONDS = 60;

const waiting = { boundSeconds: null as number | null, spentSeconds: 0 };

/** The bound of this command's waits: `flag` (--max-wait) if given, else EXT_MAX_WAIT, else the default. */
export function setWaitBound(flag: string | undefined, env: string | null = parseClientEnv().maxWait): number {
  const given = flag ?? env;
  const source = flag !== undefined ? "--max-wait" : "EXT_MAX_WAIT";
  const n = given === null ? DEFAULT_MAX_WAIT_SECONDS : /^\d+$/.test(given.trim()) ? Number(given) : Number.NaN;
  if (!Number.isSafeInteger(n))
    throw new UsageError(`${source} must be a whole number of seconds (0: never wait out a 429; got "${given}")`);
  waiting.boundSeconds = n;
  return n;
}

const waitBound = () => waiting.boundSeconds ?? setWaitBound(undefined);

/** "rate limited; retrying in 30 s (30 s of waiting so far, at most 60 s in all: …)", this wait counted. */
export function retryNote(seconds: number): string {
  return `rate limited; retrying in ${seconds} s (${waiting.spentSeconds} s of waiting so far, at most ${waitBound()} s in all: --max-wait or EXT_MAX_WAIT)`;
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
  const bound = waitBound(); // a bad EXT_MAX_WAIT is refused before the first call, not at the first 429
  const onRetry = opts.onRetry ?? ((s: number) => console.error(retryNote(s)));
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
    let notWaited: string | null = null;
    if (response.status === 429 && attempt < retries) {
      const wait = Math.max(Number(response.headers.get("retry-after")) || 1, 1);
      if (waiting.spentSeconds + wait <= bound) {
        waiting.spentSeconds += wait;
        onRetry(wait, attempt + 1);
        await sleep(wait * 1000, opts.signal);
        continue;
      }
      notWaited = `not retried: waiting ${wait} s would pass the bound of ${bound} s of waiting in all (--max-wait or EXT_MAX_WAIT; ${waiting.spentSeconds} s spent)`;
    }
    try {
      unwrap(result);
    } catch (e) {
      throw recordRefusal(e, result.error, response, notWaited);
    }
    return result;
  }
}

/** The answer's data (see `send`). */
export async function call<D>(request: () => Promise<CallResult<D>>, opts: CallOptions = {}): Promise<D> {
  return (await send(request, opts)).data as D;
}
