/**
 * The dashboard's login: a one-time code the banner and the ready file carry in a link
 * (`/dashboard/login?token=<code>`), traded once for a session secret the page keeps in its own origin's
 * storage and sends as the `X-Ext-Session` header. No cookie: cookies are scoped by host, not port, so any
 * other server on the same host (another local user's) would receive one; an origin's storage is its own
 * (scheme, host and port), and a page elsewhere cannot send a custom header here without a CORS preflight,
 * which this server never grants. The secret is random, never the admin token; secrets live in this process
 * only (a restart logs everyone out). A code expires LOGIN_CODE_TTL_MS after it was made, on the machine's
 * own time: a link found later (in a log, a history, a ready file left behind) opens nothing, and the
 * emulator's settable clock cannot keep it alive.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { LOGIN_CODE_TTL_MS } from "../../../common/dashboard-links";
import { machineNowMs } from "../../base/clock";

/** At most this many live sessions; a new login past it ends the oldest. */
export const MAX_SESSIONS = 64;

/** The request header that carries the dashboard's session secret. */
export const SESSION_HEADER = "x-ext-session";

const digestOf = (text: string) => createHash("sha256").update(text).digest();
const same = (a: string, b: string) => timingSafeEqual(digestOf(a), digestOf(b));

export interface DashboardSessions {
  /** The current one-time login code. */
  loginCode(): string;
  /** A new login code; the old one stops working. */
  mintLoginCode(): string;
  /**
   * A session secret for a live code (then used up) or the admin token; else why not: `expired` for the
   * current code past its lifetime, `refused` for anything else (a used code is no longer the current one).
   */
  login(token: string): { secret: string } | { refused: "expired" | "wrong" };
  /** True when the request's `X-Ext-Session` header holds a live session secret of this server. */
  holdsSession(sessionHeader: string | null): boolean;
  clear(): void;
}

export function createDashboardSessions(adminToken: string, realNow = machineNowMs): DashboardSessions {
  let code = newCode();
  let codeMadeAt = realNow();
  const renew = () => {
    code = newCode();
    codeMadeAt = realNow();
    return code;
  };
  // Digests, oldest first; compared one by one in constant time, never looked up by value.
  let sessions: Buffer[] = [];
  return {
    loginCode: () => code,
    mintLoginCode: renew,
    login(token) {
      const byCode = same(token, code);
      if (!byCode && !same(token, adminToken)) return { refused: "wrong" };
      if (byCode) {
        // A clock set back (or a jump) counts as expired too: the code's age must be known to be short.
        const age = realNow() - codeMadeAt;
        renew();
        if (age < 0 || age >= LOGIN_CODE_TTL_MS) return { refused: "expired" };
      }
      const secret = randomBytes(32).toString("base64url");
      sessions.push(digestOf(secret));
      if (sessions.length > MAX_SESSIONS) sessions = sessions.slice(-MAX_SESSIONS);
      return { secret };
    },
    holdsSession(sessionHeader) {
      if (!sessionHeader || sessions.length === 0) return false;
      const offered = digestOf(sessionHeader);
      let found = false;
      for (const digest of sessions) found = timingSafeEqual(digest, offered) || found;
      return found;
    },
    clear: () => {
      sessions = [];
    },
  };
}

function newCode(): string {
  return randomBytes(24).toString("base64url");
}
