/**
 * What the request log keeps of one request beyond its summary, for the dashboard's request view and
 * `GET /_emulator/requests/:id`. Bounded and never a secret:
 *  - the query string (at most DETAIL_TEXT_MAX characters);
 *  - a short allowlist of headers; `Authorization` is masked down to its scheme and the key's prefix;
 *  - the body of a small JSON write (POST/PUT/PATCH with a declared length up to DETAIL_TEXT_MAX), except
 *    under `/secrets/`, whose body is a secret value and is never read;
 *  - the body of an error response (the envelope, up to DETAIL_TEXT_MAX); success bodies are not copied,
 *    so the hot GET path never clones a response.
 */
import { keyPrefix } from "../auth/keys";

export const DETAIL_TEXT_MAX = 4096;

const REQUEST_HEADERS = ["authorization", "content-type", "content-length", "accept", "user-agent", "idempotency-key"] as const;
const RESPONSE_HEADERS = ["content-type", "content-length", "retry-after", "x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset", "location"] as const;
const BEARER = /^(bearer)[ \t]+(\S+)/i;

export interface RequestDetail {
  query: string;
  requestHeaders: Record<string, string>;
  /** Null when not kept; see `requestBodyNote`. */
  requestBody: string | null;
  requestBodyNote: string | null;
  responseHeaders: Record<string, string>;
  responseBody: string | null;
}

/** `Bearer ext_AbCd…`: enough to tell keys apart, as much as a key listing shows. */
export function maskAuthorization(value: string): string {
  const match = BEARER.exec(value);
  if (!match) return "(masked)";
  const token = match[2]!;
  return `${match[1]} ${token.startsWith("ext_") ? keyPrefix(token) : token.slice(0, 4)}…`;
}

const clip = (text: string) => (text.length > DETAIL_TEXT_MAX ? text.slice(0, DETAIL_TEXT_MAX) + "…" : text);

function pick(headers: Headers, names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) {
    const value = headers.get(name);
    if (value !== null) out[name] = name === "authorization" ? maskAuthorization(value) : clip(value);
  }
  return out;
}

const isSecretPath = (path: string) => path.includes("/secrets/");

/**
 * Called before the handler runs. Returns the detail and, for a small JSON write, a promise of its body
 * read from a clone (the handler reads the original).
 */
export function captureRequest(request: Request, url: string, path: string): { detail: RequestDetail; body: Promise<string> | null } {
  const q = url.indexOf("?");
  const detail: RequestDetail = {
    query: q < 0 ? "" : clip(url.slice(q + 1)),
    requestHeaders: pick(request.headers, REQUEST_HEADERS),
    requestBody: null,
    requestBodyNote: null,
    responseHeaders: {},
    responseBody: null,
  };
  const method = request.method;
  if (method !== "POST" && method !== "PUT" && method !== "PATCH") return { detail, body: null };
  if (isSecretPath(path)) {
    detail.requestBodyNote = "not kept: a secret value is never recorded";
    return { detail, body: null };
  }
  const type = request.headers.get("content-type") ?? "";
  const length = Number(request.headers.get("content-length") ?? NaN);
  if (!type.toLowerCase().startsWith("application/json") || !(length <= DETAIL_TEXT_MAX)) {
    detail.requestBodyNote = "not kept: only JSON bodies up to 4096 bytes are recorded";
    return { detail, body: null };
  }
  return { detail, body: request.clone().text().then(clip, () => null as unknown as string) };
}

/** Called with the final response. An error body is copied from a clone, so the client's stream is untouched. */
export function captureResponse(detail: RequestDetail, response: Response): Promise<void> | null {
  detail.responseHeaders = pick(response.headers, RESPONSE_HEADERS);
  if (response.status < 400 || response.body === null) return null;
  const length = Number(response.headers.get("content-length") ?? 0);
  if (length > DETAIL_TEXT_MAX) return null;
  return response
    .clone()
    .text()
    .then(
      (text) => void (detail.responseBody = clip(text)),
      () => undefined,
    );
}
