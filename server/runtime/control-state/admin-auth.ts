/**
 * Who may call the control plane (/_emulator), on every bind, loopback included (another local user reaches
 * loopback too):
 *  - `Authorization: Bearer <admin token>`: the owner's tools (the token is in the data directory's private
 *    server.json, the ready file, or was given with --admin-token);
 *  - no Authorization header but the dashboard's session secret in `X-Ext-Session`
 *    (server/runtime/control-state/dashboard-session.ts), from this server's own pages only (a same-origin request; see
 *    browserRefusal). A cookie never authenticates: cookies go to every port of a host;
 *  - no Authorization header at all only with --open-control-plane (loopback binds only), from scripts, not pages;
 *  - any other Authorization (a developer API key above all): 401, so a test that sends its developer key to
 *    the control plane by mistake finds out at once.
 * Checked by the pre-routing step (server/http/pre-routing.ts), before parsing and validation, like the developer
 * API's gate. A request the gate lets through has its context marked; every control-plane route requires that
 * mark (`requireAdminMark`), so a request the gate did not see — a slip in reading its path — is refused, not served.
 */
import { bearerToken } from "../../auth/bearer";
import { randomBytes, sha256, timingSafeEqual } from "../../base/crypto";
import { errors } from "../../errors/catalog";
import { requestContextOf } from "../../http/request-context";
import { type DashboardSessions, SESSION_HEADER } from "./dashboard-session";

/** `adm_` + 43 base64url characters (256 bits). */
export function generateAdminToken(): string {
  return `adm_${randomBytes(32).toString("base64url")}`;
}

const digestOf = sha256;

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
 * A session secret, or --open-control-plane, opens the control plane to this server's own page or to scripts —
 * not to every web page its user visits.
 * A browser marks its requests: a foreign `Origin`, or `Sec-Fetch-Site` other than same-origin/none, is a
 * page elsewhere (cross-site request forgery: a no-cors POST to /reset needs no preflight). Those are
 * refused. A DNS-rebinding page (a `Host` that is not a loopback name) is refused before this, on every
 * route, by the Host check (server/http/host-check.ts). `host` is what the request was addressed to.
 */
export function browserRefusal(request: Request, host: string): string | null {
  const origin = request.headers.get("origin");
  if (origin !== null && origin !== `http://${host}`) return `Origin "${origin}" is not this server`;
  const site = request.headers.get("sec-fetch-site");
  if (site !== null && site !== "same-origin" && site !== "none") return `Sec-Fetch-Site is "${site}"`;
  return null;
}

export interface AdminGateOptions {
  adminToken: string;
  /** --open-control-plane: requests without an Authorization header are let in (loopback binds only). */
  open: boolean;
  sessions: DashboardSessions;
  /** Whether the header carries a live developer API key: the refusal then says so instead of "wrong token". */
  isDeveloperKey: (authorization: string) => boolean;
}

/** Refuses a caller of the control plane that has not proved itself; returns for one that has. */
export function adminGate(options: AdminGateOptions): (request: Request, host: string) => void {
  const isAdmin = adminBearerCheck(options.adminToken);
  return (request, host) => {
    const authorization = request.headers.get("authorization");
    if (authorization === null) {
      const session = options.sessions.holdsSession(request.headers.get(SESSION_HEADER));
      if (!session && !options.open) throw errors.adminUnauthorized();
      const refusal = browserRefusal(request, host);
      if (refusal) throw errors.adminCrossSite(refusal);
      return;
    }
    if (isAdmin(authorization)) return;
    if (bearerToken(authorization) === null) throw errors.adminMalformed();
    throw options.isDeveloperKey(authorization) ? errors.developerKeyOnControlPlane() : errors.adminWrongToken();
  };
}

/** The control-plane routes' own check (a transform hook): refused unless the gate marked the request. */
export function requireAdminMark({ request }: { request: Request }): void {
  if (!requestContextOf(request)?.admin) throw errors.adminUnauthorized();
}
