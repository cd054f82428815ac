/**
 * Who may call the control plane (/_emulator):
 *  - no Authorization header: allowed only when the server is bound to a loopback address;
 *  - `Authorization: Bearer <admin token>`: always allowed;
 *  - any other Authorization (a developer API key above all): 401, even on loopback, so a test that
 *    sends its developer key to the control plane by mistake finds out at once.
 * Checked as a request gate (src/http/gates.ts), before parsing and validation, like the developer API's gate.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { bearerToken } from "../auth/bearer";
import { CONTROL_PREFIX } from "../config";
import { errors } from "../errors/catalog";
import type { RequestGate } from "../http/gates";
import { hostOf } from "../http/host-check";

/** `adm_` + 43 base64url characters (256 bits). */
export function generateAdminToken(): string {
  return `adm_${randomBytes(32).toString("base64url")}`;
}

export function isControlPath(path: string): boolean {
  return (
    path.startsWith(CONTROL_PREFIX) && (path.length === CONTROL_PREFIX.length || path[CONTROL_PREFIX.length] === "/")
  );
}

const digestOf = (text: string) => createHash("sha256").update(text).digest();

/**
 * Compares through fixed-length digests, so the comparison time says nothing about the token. The admin
 * token's digest is made once per token (every failed developer-API key is also checked against it).
 */
export function adminBearerCheck(adminToken: string): (authorization: string | null) => boolean {
  const expected = digestOf(adminToken);
  return (authorization) => {
    if (!authorization) return false;
    const token = bearerToken(authorization);
    return token !== null && timingSafeEqual(digestOf(token), expected);
  };
}

/**
 * Open without a token means open to scripts on this machine — not to every web page its user visits.
 * A browser marks its requests: a foreign `Origin`, or `Sec-Fetch-Site` other than same-origin/none, is a
 * page elsewhere (cross-site request forgery: a no-cors POST to /reset needs no preflight). Those are
 * refused. A DNS-rebinding page (a `Host` that is not a loopback name) is refused before this, on every
 * route, by the Host check (src/http/host-check.ts).
 */
export function browserRefusal(request: Request): string | null {
  const host = hostOf(request);
  const origin = request.headers.get("origin");
  if (origin !== null && origin !== `http://${host}`) return `Origin "${origin}" is not this server`;
  const site = request.headers.get("sec-fetch-site");
  if (site !== null && site !== "same-origin" && site !== "none") return `Sec-Fetch-Site is "${site}"`;
  return null;
}

export interface AdminGateOptions {
  adminToken: string;
  openWithoutToken: boolean;
  /** Whether the header carries a live developer API key: the refusal then says so instead of "wrong token". */
  isDeveloperKey: (authorization: string) => boolean;
}

export function adminGate(options: AdminGateOptions): RequestGate {
  const isAdmin = adminBearerCheck(options.adminToken);
  return {
    matches: isControlPath,
    check(request) {
      const authorization = request.headers.get("authorization");
      if (authorization === null) {
        if (!options.openWithoutToken) throw errors.adminUnauthorized();
        const refusal = browserRefusal(request);
        if (refusal) throw errors.adminCrossSite(refusal);
        return;
      }
      if (isAdmin(authorization)) return;
      if (bearerToken(authorization) === null) throw errors.adminMalformed();
      throw options.isDeveloperKey(authorization) ? errors.developerKeyOnControlPlane() : errors.adminWrongToken();
    },
  };
}
