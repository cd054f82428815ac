/**
 * Who may call the control plane (/_emulator):
 *  - no Authorization header: allowed only when the server is bound to a loopback address;
 *  - `Authorization: Bearer <admin token>`: always allowed;
 *  - any other Authorization (a developer API key above all): 401, even on loopback, so a test that
 *    sends its developer key to the control plane by mistake finds out at once.
 * Checked in onRequest, before parsing and validation, like the developer API's gate.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { Elysia } from "elysia";
import { CONTROL_PREFIX } from "../config";
import { errors } from "../errors/catalog";
import { pathOf } from "../http/auth";

const BEARER = /^bearer[ \t]+(\S+)[ \t]*$/i;

/** `adm_` + 43 base64url characters (256 bits). */
export function generateAdminToken(): string {
  return "adm_" + randomBytes(32).toString("base64url");
}

export function isControlPath(path: string): boolean {
  return path.startsWith(CONTROL_PREFIX) && (path.length === CONTROL_PREFIX.length || path[CONTROL_PREFIX.length] === "/");
}

/** Compares through fixed-length digests, so the comparison time says nothing about the token. */
export function isAdminBearer(authorization: string | null, adminToken: string): boolean {
  if (!authorization) return false;
  const match = BEARER.exec(authorization);
  if (!match) return false;
  const a = createHash("sha256").update(match[1]!).digest();
  const b = createHash("sha256").update(adminToken).digest();
  return timingSafeEqual(a, b);
}

export function adminGate(options: { adminToken: string; openWithoutToken: boolean }) {
  return new Elysia({ name: "admin-gate" }).onRequest(({ request }) => {
    if (!isControlPath(pathOf(request.url))) return;
    const authorization = request.headers.get("authorization");
    if (authorization === null) {
      if (options.openWithoutToken) return;
      throw errors.adminUnauthorized();
    }
    if (!isAdminBearer(authorization, options.adminToken)) throw errors.adminWrongToken();
  });
}
