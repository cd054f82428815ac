/**
 * The first check of every request (server/http/pre-routing.ts): its URL must be absolute (`http://`, a
 * well-formed host, then the path) and its Host header, when it has one, well-formed. With a missing, empty
 * or malformed Host (HTTP/1.0 without Host, `Host:`, `Host: x/y`) Bun hands over a URL that is only the path,
 * which the router and the gates would each read their own way; such a request is refused instead, so every
 * request that goes on has exactly one path, the one the router routes on.
 */
import { URL_SCHEME } from "./paths";

/**
 * A host name (letters, digits, `.`, `-`, `_`; at most 253) or a bracketed IPv6 address, and an optional port:
 * an allowlist, so `/`, `?`, `#`, `@`, spaces, commas (two Host headers) and percent signs are all refused.
 */
const HOST = /^(?:[A-Za-z0-9._-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;

/**
 * The last host HOST accepted: nearly every request names the same one, in its URL and its Host header alike, so
 * the pattern is run once per new host, not twice per request. One entry, so nothing a client sends can grow it.
 */
let lastWellFormed: string | null = null;
function wellFormed(host: string): boolean {
  if (host === lastWellFormed) return true;
  if (!HOST.test(host)) return false;
  lastWellFormed = host;
  return true;
}

/** The URL's host and port, between the scheme and the path; null when the URL has neither the scheme nor a path. */
function authorityOf(url: string): string | null {
  if (!url.startsWith(URL_SCHEME)) return null;
  const end = url.indexOf("/", URL_SCHEME.length);
  return end < 0 ? null : url.slice(URL_SCHEME.length, end);
}

/**
 * The host the request was addressed to — its Host header, or, for a request made in process (`app.handle`,
 * which has none), its URL's host — once the URL and the Host are well formed; otherwise why they are not.
 */
export function requestTarget(request: Request, url: string): { host: string } | { problem: string } {
  if (!url.startsWith(URL_SCHEME)) return { problem: "the request has no valid Host header" };
  const authority = authorityOf(url);
  if (authority === null || !wellFormed(authority)) return { problem: "the request URL has no valid host" };
  const header = request.headers.get("host");
  if (header === null) return { host: authority };
  if (!wellFormed(header)) return { problem: "the Host header is not a host name or address with an optional port" };
  return { host: header };
}
