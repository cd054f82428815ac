/**
 * One error for every refusal the server answers with: its envelope's code, message and details, the HTTP
 * status, and which request it was (method and path, never the query or headers, which may carry keys).
 */
import type { ErrorDetail } from "./models";

/** Where each response came from: set by the clients' middleware, read when a refusal is turned into an error. */
const origins = new WeakMap<Response, { method: string; path: string }>();

export function rememberOrigin(request: Request, response: Response): void {
  origins.set(response, { method: request.method, path: pathOf(request.url) });
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return "";
  }
}

/**
 * A call named a path parameter it did not give (undefined, null or ""): refused before anything is sent, so
 * that `/versions/{versionId}` never travels literally and an empty one never reaches another route.
 */
export class PathParameterError extends Error {
  override name = "PathParameterError";
  constructor(
    readonly method: string,
    readonly path: string,
    readonly parameter: string,
    got: unknown,
  ) {
    super(
      `${method} ${path}: the path parameter ${parameter} is ${got === "" ? "empty" : `missing (${String(got)})`}; nothing was sent`,
    );
  }
}

export class ApiCallError extends Error {
  override name = "ApiCallError";
  readonly status: number;
  readonly code: string;
  readonly details: ErrorDetail[];
  readonly method: string;
  readonly path: string;
  /** Seconds from a 429's `Retry-After`, when it has a usable one. */
  readonly retryAfterSeconds: number | undefined;

  constructor(init: {
    status: number;
    code: string;
    message: string;
    details?: ErrorDetail[];
    method: string;
    path: string;
    retryAfterSeconds?: number | undefined;
  }) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.details = init.details ?? [];
    this.method = init.method;
    this.path = init.path;
    this.retryAfterSeconds = init.retryAfterSeconds;
  }

  /** `422 validation_error: name must not be blank`, as the CLI prints it. */
  get summary(): string {
    return `${this.status} ${this.code}: ${this.message}`;
  }
}

/** A bound on what is kept of any answer: this server's first 100 problems and its closing "…and more" line. */
const MAX_DETAILS = 101;

/** An ApiCallError from a refused response and its (already parsed) body, whatever that body is. */
export function apiCallError(response: Response, body: unknown): ApiCallError {
  const origin = origins.get(response) ?? { method: "GET", path: pathOf(response.url) };
  const envelope = isObject(body) && isObject(body.error) ? body.error : undefined;
  const retryAfterHeader = response.headers.get("retry-after");
  const retryAfter = retryAfterHeader === null ? Number.NaN : Number(retryAfterHeader);
  return new ApiCallError({
    status: response.status,
    code: typeof envelope?.code === "string" ? envelope.code : "http_error",
    message:
      typeof envelope?.message === "string"
        ? envelope.message
        : `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}`,
    details: Array.isArray(envelope?.details) ? envelope.details.filter(isDetail).slice(0, MAX_DETAILS) : [],
    ...origin,
    retryAfterSeconds: Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter : undefined,
  });
}

/** What every openapi-fetch call resolves to. */
export interface CallResult<D> {
  data?: D;
  error?: unknown;
  response: Response;
}

/** The call's data, or its refusal thrown as an ApiCallError (a 2xx with no body gives `undefined`). */
export function unwrap<D>(result: CallResult<D>): D {
  if (result.response.ok) return result.data as D;
  throw apiCallError(result.response, result.error);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function isDetail(v: unknown): v is ErrorDetail {
  return isObject(v) && typeof v.message === "string";
}

/** A helper could not start or reach an emulator (both helpers' `startEmulator()` and `connectEmulator()`). */
export class StartEmulatorError extends Error {
  override name = "StartEmulatorError";
}
