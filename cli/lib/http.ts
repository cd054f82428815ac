/**
 * The CLI's HTTP client for the developer API and the control plane. The server's error code and message
 * are shown as they are (`422 bundle_invalid: …` plus one line per detail); a 429 is retried after its
 * Retry-After, a bounded number of times.
 */
import { API_PREFIX, CONTROL_PREFIX, DEPLOY_LIMITS_PREFIX } from "../../src/config";
import { UsageError } from "./runner";

export interface ErrorBody {
  code: string;
  message: string;
  status: number;
  details?: { field?: string; path?: string; message: string }[];
}

/** The server refused: carries its envelope. */
export class ApiRequestError extends Error {
  override name = "ApiRequestError";
  constructor(
    readonly status: number,
    readonly body: ErrorBody | null,
    text: string,
  ) {
    super(body ? `${status} ${body.code}: ${body.message}` : `HTTP ${status}${text ? `: ${text.slice(0, 200)}` : ""}`);
  }

  /** The message plus one line per detail, as the server wrote them. */
  describe(): string {
    const lines = [this.message];
    for (const d of this.body?.details ?? []) {
      const where = d.path ?? d.field;
      const rest = Object.entries(d).filter(([k]) => !["path", "field", "message"].includes(k));
      lines.push(`  - ${where ? `${where}: ` : ""}${d.message ?? JSON.stringify(Object.fromEntries(rest))}`);
    }
    return lines.join("\n");
  }
}

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

export interface RequestOptions {
  method?: string;
  token?: string | null;
  json?: unknown;
  /** A body factory, so a 429 retry can send it again (a stream can be read only once). */
  body?: () => NonNullable<RequestInit["body"]>;
  headers?: Record<string, string>;
  /** How many times a 429 is retried after its Retry-After (default 3). */
  retries?: number;
  /** Told before each wait, e.g. to print "rate limited, retrying in 4 s". */
  onRetry?: (seconds: number, attempt: number) => void;
  /** Longest single Retry-After honoured, in seconds (default 120). */
  maxWaitSeconds?: number;
  /** Cuts the request, or a Retry-After wait, short; the call then throws the signal's reason. */
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

export async function requestJson<T = unknown>(url: string, opts: RequestOptions = {}): Promise<T> {
  const retries = opts.retries ?? 3;
  for (let attempt = 0; ; attempt++) {
    const headers: Record<string, string> = { accept: "application/json", ...opts.headers };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    let body: RequestInit["body"] | undefined = opts.body?.();
    if (opts.json !== undefined) {
      body = JSON.stringify(opts.json);
      headers["content-type"] = "application/json";
    }
    let res: Response;
    let text: string;
    try {
      res = await fetch(url, { method: opts.method ?? "GET", headers, body, signal: opts.signal });
      text = await res.text();
    } catch (e) {
      if (opts.signal?.aborted) throw opts.signal.reason;
      throw new UnreachableError(
        `cannot reach ${new URL(url).origin} (${(e as Error).message}); is the emulator running?`,
      );
    }
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (res.ok) return parsed as T;
    if (res.status === 429 && attempt < retries) {
      const wait = Math.min(Math.max(Number(res.headers.get("retry-after")) || 1, 1), opts.maxWaitSeconds ?? 120);
      opts.onRetry?.(wait, attempt + 1);
      await sleep(wait * 1000, opts.signal);
      continue;
    }
    const envelope = (parsed as { error?: ErrorBody } | undefined)?.error;
    throw new ApiRequestError(res.status, envelope && typeof envelope.code === "string" ? envelope : null, text);
  }
}
