/**
 * The dashboard's login: a one-time code, minted on the owner's request (`POST /_emulator/dashboard-login`,
 * what `ext dashboard` calls) and posted back in a form body (`POST /dashboard/login`; never in a URL, which
 * is logged, kept in a history and shown in every process list), traded once for a session secret the page
 * keeps in its own origin's storage and sends as the `X-Ext-Session` header. No cookie: cookies are scoped by
 * host, not port, so any other server on the same host (another local user's) would receive one; an origin's
 * storage is its own (scheme, host and port), and a page elsewhere cannot send a custom header here without a
 * CORS preflight, which this server never grants. The secret is random, never the admin token; secrets live in
 * this process only (a restart logs everyone out).
 *
 * One code at a time, and none until one is asked for: minting replaces the one before. A code works for
 * LOGIN_CODE_TTL_MS after it was made, on the machine's own time (the emulator's settable clock cannot keep it
 * alive), and once. Each code has a public id (not a secret: it opens nothing) by which its minter asks what
 * became of it — still waiting, used, expired, or revoked because it was seen in a URL.
 */
import { LOGIN_CODE_TTL_MS } from "../../../common/dashboard-links";
import { machineNowMs } from "../../base/clock";
import { randomBytes, sha256, timingSafeEqual } from "../../base/crypto";

/** At most this many live sessions; a new login past it ends the oldest. */
export const MAX_SESSIONS = 64;

/** The request header that carries the dashboard's session secret. */
export const SESSION_HEADER = "x-ext-session";

const digestOf = sha256;
const same = (a: string, b: string) => timingSafeEqual(digestOf(a), digestOf(b));

/** What became of a login code: `revoked` when it was sent in a URL (it may be in a log, a history, a process list). */
export type LoginState = "waiting" | "used" | "expired" | "revoked";

export interface MintedLogin {
  /** Names the login when its minter asks what became of it; opens nothing. */
  id: string;
  /** The one-time code: the credential. */
  code: string;
}

export interface DashboardSessions {
  /** A new login code; the one before stops working. */
  mintLogin(): MintedLogin;
  /** The state of the current login if `id` names it; null for any other id (replaced, or never minted here). */
  loginState(id: string): LoginState | null;
  /** A session secret for the current code while it waits (it is then used); else why not. */
  redeem(code: string): { secret: string } | { refused: "expired" | "revoked" | "wrong" };
  /** `text` was seen in a URL: if it is the waiting code, the code is revoked. True when it was. */
  revokeIfCode(text: string): boolean;
  /** A session secret for a caller the route has proven otherwise (the admin token in a header). */
  openSession(): string;
  /** True when the request's `X-Ext-Session` header holds a live session secret of this server. */
  holdsSession(sessionHeader: string | null): boolean;
  clear(): void;
}

interface CurrentLogin extends MintedLogin {
  madeAt: number;
  state: LoginState;
}

export function createDashboardSessions(realNow = machineNowMs): DashboardSessions {
  let current: CurrentLogin | null = null;
  // A code's age must be known to be short: a machine clock set back (or a jump) counts as expired too.
  const expired = (login: CurrentLogin) => {
    const age = realNow() - login.madeAt;
    return age < 0 || age >= LOGIN_CODE_TTL_MS;
  };
  /** The current login, its lifetime applied. */
  const live = () => {
    if (current?.state === "waiting" && expired(current)) current.state = "expired";
    return current;
  };
  /** The current login when `code` is its code (compared in constant time), whatever its state. */
  const loginOf = (code: string) => {
    const login = live();
    return login !== null && same(code, login.code) ? login : null;
  };
  // Digests, oldest first; compared one by one in constant time, never looked up by value.
  let sessions: Buffer[] = [];
  const openSession = () => {
    const secret = randomBytes(32).toString("base64url");
    sessions.push(digestOf(secret));
    if (sessions.length > MAX_SESSIONS) sessions = sessions.slice(-MAX_SESSIONS);
    return secret;
  };
  return {
    mintLogin() {
      current = { id: randomBytes(9).toString("base64url"), code: newCode(), madeAt: realNow(), state: "waiting" };
      return { id: current.id, code: current.code };
    },
    loginState: (id) => {
      const login = live();
      return login !== null && login.id === id ? login.state : null;
    },
    redeem(code) {
      const login = loginOf(code);
      if (login?.state === "waiting") {
        login.state = "used";
        return { secret: openSession() };
      }
      // A used code is refused as a wrong one: nothing tells a guesser it was ever right.
      return { refused: login?.state === "expired" || login?.state === "revoked" ? login.state : "wrong" };
    },
    revokeIfCode(text) {
      const login = loginOf(text);
      if (login?.state !== "waiting") return false;
      login.state = "revoked";
      return true;
    },
    openSession,
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

const BASE32 = "abcdefghijklmnopqrstuvwxyz234567";

/**
 * A fresh label: 26 letters and digits of lowercase base32 (a DNS label takes 63), each from 5 bits of its own
 * random byte (32 divides 256: every character equally likely), 130 random bits in all.
 */
export function newDashboardLabel(): string {
  let out = "";
  for (const byte of randomBytes(26)) out += BASE32[byte & 31];
  return out;
}
