/**
 * Which headers a profile may change, and to what: the one rule a profile's entries are checked by (compile.ts)
 * and what `ext conformance` and `ext proxy` save is held to (observe.ts). A profile changes what a client of
 * the developer API reads, never how a browser, a proxy or the connection treats an answer: every answer stays
 * JSON, and only headers a platform's API plausibly differs in may be added or given another value (an
 * allowlist: an unknown header may mean something to some browser or proxy).
 */

/** The server's own framing of the message: never the answer's. */
const FRAMING = new Set([
  "connection",
  "keep-alive",
  "transfer-encoding",
  "content-length",
  "content-encoding",
  "te",
  "trailer",
  "upgrade",
]);

/**
 * The headers (lower case) a `header-added` entry may name: the answer's JSON media type, how to authenticate,
 * the rate window (GitHub-style `X-RateLimit-*` and the IETF draft's `RateLimit-*`), request ids, deprecation.
 * docs/profiles.md lists them.
 */
export const PROFILE_HEADERS: readonly string[] = [
  "content-type",
  "www-authenticate",
  "retry-after",
  "x-ratelimit-limit",
  "x-ratelimit-remaining",
  "x-ratelimit-reset",
  "x-ratelimit-used",
  "x-ratelimit-resource",
  "ratelimit",
  "ratelimit-policy",
  "ratelimit-limit",
  "ratelimit-remaining",
  "ratelimit-reset",
  "x-request-id",
  "request-id",
  "x-correlation-id",
  "deprecation",
  "sunset",
];
const ALLOWED = new Set(PROFILE_HEADERS);

/** The longest header value a profile holds (a rate policy or a WWW-Authenticate challenge is far shorter). */
export const HEADER_VALUE_MAX = 256;
/** Printable ASCII, no tab: the profile schema's pattern for a header value. */
export const HEADER_VALUE_PATTERN = "^[\\x20-\\x7e]*$";
const HEADER_VALUE = new RegExp(HEADER_VALUE_PATTERN);

/** `application/json` or `application/<anything>+json`, with or without parameters. */
export function isJsonMediaType(value: string): boolean {
  const essence = value.split(";", 1)[0]!.trim().toLowerCase();
  return /^application\/([a-z0-9!#$&^_.-]+\+)?json$/.test(essence);
}

/** Why an answer may not carry `value` as its `header` in a profile, or null when it may. */
export function headerAddedProblem(header: string, value: string): string | null {
  const name = header.toLowerCase();
  if (FRAMING.has(name)) return `${header} is the server's own framing, not the answer's`;
  if (!ALLOWED.has(name))
    return `${header} is not a header a profile may change: it may add or change Content-Type (a JSON media type), WWW-Authenticate, Retry-After, rate-limit, request-id and deprecation headers (docs/profiles.md lists them)`;
  if (value.length > HEADER_VALUE_MAX || !HEADER_VALUE.test(value))
    return `${header}: a value of printable ASCII, at most ${HEADER_VALUE_MAX} characters`;
  if (name === "content-type" && !isJsonMediaType(value))
    return `Content-Type ${value} is not a JSON media type: a profile keeps every answer JSON (application/json, or application/…+json)`;
  if (name === "www-authenticate") {
    const scheme = value.trim().split(/[\s,]/, 1)[0]!;
    if (scheme.toLowerCase() !== "bearer")
      return `WWW-Authenticate: the scheme is Bearer (the developer API's keys), not ${scheme || "none"}`;
  }
  if (name === "retry-after" && !/^[0-9]{1,9}$/.test(value))
    return "Retry-After: a number of seconds, as the developer API sends it";
  return null;
}

/** Why an answer may not go without `header` in a profile, or null when it may. */
export function headerMissingProblem(header: string): string | null {
  if (header.toLowerCase() === "content-type")
    return "an answer's Content-Type stays: without it a client or a browser guesses what the body is";
  return null;
}
