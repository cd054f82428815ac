/** Where a request goes, from its URL string alone (the hot path parses no URL object). */
import { API_PREFIX, DEPLOY_LIMITS_PREFIX } from "../config";

/** The path of a request URL without parsing a URL object (hot path). */
export function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return "/";
  const q = url.indexOf("?", start);
  return q < 0 ? url.slice(start) : url.slice(start, q);
}

export function isDeveloperApiPath(path: string): boolean {
  return (
    (path.startsWith(API_PREFIX) && (path.length === API_PREFIX.length || path[API_PREFIX.length] === "/")) ||
    path.startsWith(`${DEPLOY_LIMITS_PREFIX}/`)
  );
}
