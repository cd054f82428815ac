/**
 * The first check of every request, before faults, gates and routes: its URL must be absolute (`http://`,
 * a well-formed host, then the path) and its Host header, when it has one, well-formed. With a missing, empty
 * or malformed Host (HTTP/1.0 without Host, `Host:`, `Host: x/y`) Bun hands over a URL that is only the path,
 * which the router and the gates would each read their own way; such a request is refused here instead, so
 * every request that goes on has exactly one path (src/http/paths.ts), the one the router routes on.
 */
import { Elysia } from "elysia";
import { errors } from "../errors/catalog";
import { URL_SCHEME } from "./paths";

/**
 * A host name (letters, digits, `.`, `-`, `_`; at most 253) or a bracketed IPv6 address, and an optional port:
 * an allowlist, so `/`, `?`, `#`, `@`, spaces, commas (two Host headers) and percent signs are all refused.
 */
const HOST = /^(?:[A-Za-z0-9._-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;

/** Why the request's URL or Host cannot be trusted to say where it goes; null when they can. */
export function requestUrlProblem(request: Request): string | null {
  const url = request.url;
  if (!url.startsWith(URL_SCHEME)) return "the request has no valid Host header";
  const end = url.indexOf("/", URL_SCHEME.length);
  const authority = end < 0 ? url.slice(URL_SCHEME.length) : url.slice(URL_SCHEME.length, end);
  if (end < 0 || !HOST.test(authority)) return "the request URL has no valid host";
  const header = request.headers.get("host");
  // A request made in process (`app.handle`) has no Host header: its URL's host, checked above, stands in.
  if (header !== null && !HOST.test(header))
    return "the Host header is not a host name or address with an optional port";
  return null;
}

export function requestUrlCheck() {
  return new Elysia({ name: "request-url-check" }).onRequest(({ request }) => {
    const problem = requestUrlProblem(request);
    if (problem) throw errors.badRequestTarget(problem);
  });
}
