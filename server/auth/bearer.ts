/**
 * The one reading of an `Authorization` header as `Bearer <token>`: the scheme in any case, one run of spaces
 * or tabs, one token, nothing after it but spaces or tabs. Shared by the developer API's keys, the control
 * plane's admin token and the request log's masking, so the three can never disagree on what a key is.
 */
const BEARER = /^bearer[ \t]+(\S+)[ \t]*$/i;

/** The token of a well-formed Bearer header, or null. */
export function bearerToken(authorization: string): string | null {
  return BEARER.exec(authorization)?.[1] ?? null;
}
