/**
 * What the request log keeps of one request beyond its summary, for the dashboard's request view and
 * `GET /_emulator/requests/:id`. Bounded and never a secret:
 *  - the query string (at most DETAIL_TEXT_MAX characters);
 *  - a short allowlist of headers; `Authorization` is masked down to its scheme and the key's prefix;
 *  - the body of a small JSON write (POST/PUT/PATCH with a declared length up to DETAIL_TEXT_MAX), except
 *    under `/secrets/`, whose body is a secret value and is never read;
 *  - the body of an error response (the envelope, up to DETAIL_TEXT_MAX), and of a JSON success answer (the
 *    value is kept by reference and serialized only when the detail is read, so serving never pays for it;
 *    an answer that is a Response is not cloned);
 *  - in every kept body, the caller's key, anything shaped like a generated key and the values of fields
 *    named like secrets are masked as the Authorization header is (`ext_AbCd…`). Nothing under `/secrets/`
 *    is kept at all.
 */
import { bearerToken } from "../../auth/bearer";
import { keyPrefix } from "../../auth/keys";
import { JSON_MEDIA_TYPE } from "../../http/answer-headers";

export const DETAIL_TEXT_MAX = 4096;

const REQUEST_HEADERS = [
  "authorization",
  "content-type",
  "content-length",
  "accept",
  "user-agent",
  "idempotency-key",
  "x-ext-client",
] as const;
const RESPONSE_HEADERS = [
  "content-type",
  "content-length",
  "retry-after",
  "x-ratelimit-limit",
  "x-ratelimit-remaining",
  "x-ratelimit-reset",
  "location",
] as const;

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
  const token = bearerToken(value);
  if (token === null) return "(masked)";
  // The scheme as sent: bearerToken has checked it is "bearer" in some case.
  return `${value.slice(0, 6)} ${token.startsWith("ext_") ? keyPrefix(token) : token.slice(0, 4)}…`;
}

const clip = (text: string) => (text.length > DETAIL_TEXT_MAX ? `${text.slice(0, DETAIL_TEXT_MAX)}…` : text);

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
 * What is kept while a request is served: references to the request's headers and to the answer's headers
 * and error envelope (read only when the detail is; neither the request nor a response itself is kept), the
 * URL, and the bodies that must be read at once (a clone's stream is gone after the response). The
 * allowlists, the masking, the clipping and the envelope's text are applied when the detail is read
 * (`detailOf`), so serving a request never pays for a detail nobody asks for.
 */
export interface CapturedDetail {
  url: string;
  requestHeaders: Headers;
  /** Whether the request's body is one to keep (a small JSON write), taken when the response is known. */
  keepBody: boolean;
  requestBody: string | null;
  requestBodyNote: string | null;
  /** The headers of an answer that was a Response. */
  responseHeaders: Headers | null;
  /** Headers set while the request was served (rate-limit headers, an error's own). */
  setHeaders: Record<string, unknown> | null;
  /** True when the answer was a value the framework serialized as JSON. */
  jsonAnswer: boolean;
  /** The envelope of an error answer, serialized when the detail is read. */
  errorValue: unknown;
  /** A JSON success answer, serialized (masked, clipped) when the detail is read; never under /secrets/. */
  answerValue: unknown;
  /** False under /secrets/: no body of such a request or its answer is kept. */
  keepAnswer: boolean;
  responseBody: string | null;
}

/** The answer's headers as they went out: the framework adds the ones set while serving, and a JSON type. */
function answerHeaders(captured: CapturedDetail): Headers {
  const headers = new Headers(captured.responseHeaders ?? undefined);
  for (const [name, value] of Object.entries(captured.setHeaders ?? {}))
    if (typeof value === "string") headers.set(name, value);
  if (captured.jsonAnswer && !headers.has("content-type")) headers.set("content-type", JSON_MEDIA_TYPE);
  return headers;
}

/** The detail as the control plane shows it: allowlisted headers, the key masked, texts clipped. */
export function detailOf(captured: CapturedDetail): RequestDetail {
  const q = captured.url.indexOf("?");
  const caller = bearerToken(captured.requestHeaders.get("authorization") ?? "");
  const answer = captured.errorValue !== undefined ? captured.errorValue : captured.answerValue;
  return {
    query: q < 0 ? "" : clip(captured.url.slice(q + 1)),
    requestHeaders: pick(captured.requestHeaders, REQUEST_HEADERS),
    requestBody: captured.requestBody === null ? null : clip(maskText(captured.requestBody, caller)),
    requestBodyNote: captured.requestBodyNote,
    responseHeaders: pick(answerHeaders(captured), RESPONSE_HEADERS),
    responseBody:
      answer !== undefined
        ? clip(JSON.stringify(maskValue(answer, caller)))
        : captured.responseBody === null
          ? null
          : clip(maskText(captured.responseBody, caller)),
  };
}

/** Fields whose string value is a credential wherever they appear in a body. */
const SECRET_FIELDS = new Set(["plaintext", "apikey", "api_key", "token", "secret", "password", "authorization"]);
/** A generated key: `ext_` and 40 base62 characters (extension ids are lower-case and shorter). */
const GENERATED_KEY = /^ext_[0-9A-Za-z]{40}$/;

const maskKey = (key: string) => `${key.startsWith("ext_") ? keyPrefix(key) : key.slice(0, 4)}…`;

/** A copy of a JSON value with every credential masked; depth is bounded by the server's own nesting check. */
function maskValue(value: unknown, caller: string | null, field = ""): unknown {
  if (typeof value === "string") {
    if (SECRET_FIELDS.has(field.toLowerCase()) || GENERATED_KEY.test(value)) return maskKey(value);
    return caller && value.includes(caller) ? value.split(caller).join(maskKey(caller)) : value;
  }
  if (Array.isArray(value)) return value.map((v) => maskValue(v, caller));
  if (typeof value === "object" && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskValue(v, caller, k)]));
  return value;
}

/** A kept body's text, masked: as JSON when it parses, else only the caller's key is replaced. */
function maskText(text: string, caller: string | null): string {
  try {
    return JSON.stringify(maskValue(JSON.parse(text), caller));
  } catch {
    return caller ? text.split(caller).join(maskKey(caller)) : text;
  }
}

/**
 * Called before the handler runs. Notes whether the body is one to keep (a small JSON write); it is taken
 * when the response is known (`keepRequestBody`), so the handler's own read is the only one.
 */
export function captureRequest(request: Request, url: string, path: string): CapturedDetail {
  const detail: CapturedDetail = {
    url,
    requestHeaders: request.headers,
    keepBody: false,
    requestBody: null,
    requestBodyNote: null,
    responseHeaders: null,
    setHeaders: null,
    jsonAnswer: false,
    errorValue: undefined,
    answerValue: undefined,
    keepAnswer: !isSecretPath(path),
    responseBody: null,
  };
  const method = request.method;
  if (method !== "POST" && method !== "PUT" && method !== "PATCH") return detail;
  if (!detail.keepAnswer) {
    detail.requestBodyNote = "not kept: a secret value is never recorded";
    return detail;
  }
  const type = request.headers.get("content-type") ?? "";
  const length = Number(request.headers.get("content-length") ?? NaN);
  if (!type.toLowerCase().startsWith("application/json") || !(length <= DETAIL_TEXT_MAX)) {
    detail.requestBodyNote = "not kept: only JSON bodies up to 4096 bytes are recorded";
    return detail;
  }
  detail.keepBody = true;
  return detail;
}

/**
 * Called with the final response, for a body `captureRequest` chose to keep: the text the JSON parser read,
 * or, when the request was answered before its body was read (a 401, a 404), the body read now — before the
 * response goes out, as an unread body is gone once it has. Returns that read, if one was needed.
 */
export function keepRequestBody(
  detail: CapturedDetail,
  request: Request,
  parsedText: string | undefined,
): Promise<void> | null {
  if (parsedText !== undefined) {
    detail.requestBody = clip(parsedText);
    return null;
  }
  if (request.bodyUsed) return null;
  return request.text().then(
    (text) => void (detail.requestBody = clip(text)),
    () => undefined,
  );
}

/**
 * Called with the answer, before it is sent, and for a Response the headers it was made with when they are known
 * (server/http/request-context.ts: `headersOfAnswer`). An error envelope is kept as the value it is (serialized when
 * the detail is read); the body of an error Response is copied from a clone, so the client's stream is untouched.
 */
export function captureAnswer(
  detail: CapturedDetail,
  value: unknown,
  status: number,
  setHeaders: Record<string, unknown>,
  responseHeaders: Headers | null,
): Promise<void> | null {
  detail.setHeaders = setHeaders;
  if (!(value instanceof Response)) {
    detail.jsonAnswer = typeof value === "object" && value !== null;
    if (status >= 400) detail.errorValue = value;
    else if (detail.jsonAnswer && detail.keepAnswer) detail.answerValue = value;
    return null;
  }
  const headers = responseHeaders ?? value.headers;
  detail.responseHeaders = headers;
  if (status < 400 || value.body === null) return null;
  const length = Number(headers.get("content-length") ?? 0);
  if (length > DETAIL_TEXT_MAX) return null;
  return value
    .clone()
    .text()
    .then(
      (text) => void (detail.responseBody = clip(text)),
      () => undefined,
    );
}
