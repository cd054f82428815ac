/**
 * The target's rate limits, respected rather than reported. Each answer's X-RateLimit-Remaining and
 * X-RateLimit-Reset say how much room its group (the spec's groups: GETs, creates, submits, DELETEs; PUT and
 * PATCH) has left; a request its group has no room for is not sent, and a run that cannot fit stops with when
 * it can start again. A 429 is never a difference: a short Retry-After (the user's own traffic filled the
 * window) is waited out once, anything else stops the run — which then cleans up and says when to retry.
 */
import { API_PREFIX } from "../../common/addresses";
import { RATE_GROUPS, type RateGroup, rateGroupOf } from "../../server";
import { nowMs } from "./clock";

export type { RateGroup };

/** The spec's group of a request to the target, as the emulator's own limiter groups its routes. */
export function groupOf(method: string, path: string): RateGroup | null {
  const p = path.split("?")[0]!;
  const route =
    method !== "POST"
      ? p
      : /\/extensions\/[^/]+\/versions$/.test(p)
        ? `${API_PREFIX}/extensions/:id/versions`
        : /\/extensions$/.test(p)
          ? `${API_PREFIX}/extensions`
          : null;
  return rateGroupOf(method, route);
}

const groupWords = (group: RateGroup) => RATE_GROUPS[group].label;

/** Why the run stopped for the target's rate limits; thrown by the transport, caught by the run. */
export class RateLimitStop extends Error {
  override name = "RateLimitStop";
  /** The check that could not run, once known. */
  check: string | null = null;
  constructor(
    /** What happened, in words (without the check). */
    readonly reason: string,
    /** The request it stopped at (`METHOD /path`). */
    readonly request: string,
    /** Seconds until the target has room again; null when it did not say. */
    readonly retryAfterSeconds: number | null,
    /** Nothing was sent: the run knew the request would not fit. */
    readonly unsent: boolean,
  ) {
    super(reason);
  }
}

/** "retry after 42 s (about 10:31)", in the machine's local time. */
export function retryWords(seconds: number | null, now = nowMs()): string {
  if (seconds === null) return "the target did not say when to retry";
  const at = new Date(now + seconds * 1000);
  const hhmm = `${String(at.getHours()).padStart(2, "0")}:${String(at.getMinutes()).padStart(2, "0")}`;
  return `retry after ${seconds} s (about ${hhmm})`;
}

/** A 429 asking for at most this long is waited out (once) and the request sent again. */
export const LONGEST_WAIT_SECONDS = 60;

interface Room {
  remaining: number;
  /** Unix ms when the window reopens; null when the target did not say. */
  resetMs: number | null;
}

export class RateBudget {
  private readonly rooms = new Map<RateGroup, Room>();

  /** What the target said of its windows in an answer's headers. */
  learn(method: string, path: string, headers: Headers): void {
    const group = groupOf(method, path);
    const remaining = Number(headers.get("x-ratelimit-remaining") ?? "");
    if (!group || headers.get("x-ratelimit-remaining") === null || !Number.isInteger(remaining)) return;
    const reset = Number(headers.get("x-ratelimit-reset") ?? "");
    this.rooms.set(group, { remaining, resetMs: Number.isInteger(reset) && reset > 0 ? reset * 1000 : null });
  }

  /** Requests of `group` the target has room for, or null when unknown (or its window has reopened). */
  room(group: RateGroup): number | null {
    const r = this.rooms.get(group);
    if (!r || (r.resetMs !== null && nowMs() >= r.resetMs)) return null;
    return r.remaining;
  }

  /** Seconds until `group`'s window reopens, when the target said. */
  waitSeconds(group: RateGroup): number | null {
    const r = this.rooms.get(group);
    return r?.resetMs == null ? null : Math.max(1, Math.ceil((r.resetMs - nowMs()) / 1000));
  }

  /** Throws when `group` has no room for `needed` more requests: nothing is sent. */
  require(method: string, path: string, needed = 1): void {
    const group = groupOf(method, path);
    const room = group ? this.room(group) : null;
    if (group === null || room === null || room >= needed) return;
    const what = groupWords(group);
    throw new RateLimitStop(
      needed === 1
        ? `the target's ${what} window has no room left (X-RateLimit-Remaining ${room}); nothing was sent`
        : `the target's ${what} window has ${room} requests left and this run needs ${needed}; nothing more was sent`,
      `${method} ${path}`,
      this.waitSeconds(group),
      true,
    );
  }
}
