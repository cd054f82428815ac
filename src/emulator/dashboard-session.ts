/**
 * The dashboard's login: a one-time code the banner and the ready file carry in a link
 * (`/dashboard/login?token=<code>`), traded once for a session id in an HttpOnly, SameSite=Strict cookie. The
 * cookie holds a random id, never the admin token; ids live in this process only (a restart logs everyone out).
 * Cookies are not port-isolated, so the cookie's name carries the port: two servers on one host do not
 * overwrite each other's session.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** At most this many live sessions; a new login past it ends the oldest. */
export const MAX_SESSIONS = 64;

const digestOf = (text: string) => createHash("sha256").update(text).digest();
const same = (a: string, b: string) => timingSafeEqual(digestOf(a), digestOf(b));

export interface DashboardSessions {
  /** `ext_session_<port>`. */
  cookieName(): string;
  /** Known once listening (port 0 picks one). */
  setPort(port: number): void;
  /** The current one-time login code. */
  loginCode(): string;
  /** A new login code; the old one stops working. */
  mintLoginCode(): string;
  /** A session id for a valid code (then used up) or the admin token; null otherwise. */
  login(token: string): string | null;
  /** True when the request's Cookie header holds a live session of this server. */
  holdsSession(cookieHeader: string | null): boolean;
  clear(): void;
}

export function createDashboardSessions(adminToken: string, port: number): DashboardSessions {
  let cookiePort = port;
  let code = newCode();
  const sessions = new Set<string>();
  return {
    cookieName: () => `ext_session_${cookiePort}`,
    setPort(p) {
      cookiePort = p;
    },
    loginCode: () => code,
    mintLoginCode() {
      code = newCode();
      return code;
    },
    login(token) {
      const byCode = same(token, code);
      if (!byCode && !same(token, adminToken)) return null;
      if (byCode) code = newCode();
      const id = randomBytes(32).toString("base64url");
      sessions.add(id);
      // A Set keeps insertion order: the first is the oldest.
      if (sessions.size > MAX_SESSIONS) sessions.delete(sessions.values().next().value!);
      return id;
    },
    holdsSession(cookieHeader) {
      if (!cookieHeader || sessions.size === 0) return false;
      const id = cookieValue(cookieHeader, `ext_session_${cookiePort}`);
      return id !== null && sessions.has(id);
    },
    clear: () => sessions.clear(),
  };
}

function newCode(): string {
  return randomBytes(24).toString("base64url");
}

/** The value of cookie `name` in a Cookie header, or null. */
export function cookieValue(header: string, name: string): string | null {
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}
