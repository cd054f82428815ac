/** Which part of the URL space a path belongs to, from the path alone (the hot path parses no URL object). */
import { API_PREFIX, CONTROL_PREFIX, DEPLOY_LIMITS_PREFIX } from "../../common/addresses";

/** Every URL the app serves starts so; the request-URL check (server/http/request-url.ts) refuses any other. */
export const URL_SCHEME = "http://";

/**
 * The router's reading of a URL: the path starts at the first "/" after the scheme (the app is built with
 * `standardHostname: false`, so Elysia reads from this same index), and ends before the query. Only meant for
 * URLs the request-URL check let through.
 */
export function pathOf(url: string): string {
  const start = url.indexOf("/", URL_SCHEME.length);
  if (start < 0) return "/";
  const q = url.indexOf("?", start + 1);
  return q < 0 ? url.slice(start) : url.slice(start, q);
}

/** The developer API (its key, its rate windows, its request log), the control plane (/_emulator), or neither. */
export type Plane = "api" | "control" | "other";

const under = (path: string, prefix: string) =>
  path.startsWith(prefix) && (path.length === prefix.length || path[prefix.length] === "/");

export function isDeveloperApiPath(path: string): boolean {
  return under(path, API_PREFIX) || path.startsWith(`${DEPLOY_LIMITS_PREFIX}/`);
}

export function isControlPath(path: string): boolean {
  return under(path, CONTROL_PREFIX);
}

export function planeOf(path: string): Plane {
  return isDeveloperApiPath(path) ? "api" : isControlPath(path) ? "control" : "other";
}
