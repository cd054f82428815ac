/** Where a request goes, from its URL string alone (the hot path parses no URL object). */
import { API_PREFIX, DEPLOY_LIMITS_PREFIX } from "../config";

/** Every URL the app serves starts so; the request-URL check (src/http/request-url.ts) refuses any other. */
export const URL_SCHEME = "http://";

/**
 * The router's reading of a URL: the path starts at the first "/" after the scheme (the app is built with
 * `standardHostname: false`, so Elysia reads from this same index), and ends before the query. Only meant for
 * URLs the request-URL check let through; anything else gives "/", which is no route's gate.
 */
export function pathOf(url: string): string {
  const start = url.indexOf("/", URL_SCHEME.length);
  if (start < 0) return "/";
  const q = url.indexOf("?", start + 1);
  return q < 0 ? url.slice(start) : url.slice(start, q);
}

export function isDeveloperApiPath(path: string): boolean {
  return (
    (path.startsWith(API_PREFIX) && (path.length === API_PREFIX.length || path[API_PREFIX.length] === "/")) ||
    path.startsWith(`${DEPLOY_LIMITS_PREFIX}/`)
  );
}
