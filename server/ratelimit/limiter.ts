/**
 * Per-account request windows, in process memory (no database write per request). Fixed windows that
 * open at an account's first request in a group and close `periodMs` later: the Retry-After of a refused
 * request is exactly the time until the window closes, and a refused request consumes nothing.
 * Windows read the emulator clock, so the control plane can move time past them.
 */

import { API_PREFIX } from "../../common/addresses";
import type { Clock } from "../base/clock";
import { errors } from "../errors/catalog";

export type RateGroup = "get" | "create_extension" | "submit_version" | "delete" | "put_patch";

export const RATE_GROUPS: Record<RateGroup, { limit: number; periodMs: number; label: string }> = {
  get: { limit: 120, periodMs: 60_000, label: "GET endpoints" },
  create_extension: { limit: 10, periodMs: 3_600_000, label: "POST /extensions" },
  submit_version: { limit: 30, periodMs: 3_600_000, label: "POST /extensions/:id/versions" },
  delete: { limit: 30, periodMs: 60_000, label: "DELETE endpoints" },
  put_patch: { limit: 60, periodMs: 60_000, label: "PUT and PATCH endpoints" },
};

/** The developer API's POST routes, by their path in the app's route table, and the group each counts in. */
export const POST_ROUTE_GROUPS: Record<string, RateGroup> = {
  [`${API_PREFIX}/extensions`]: "create_extension",
  [`${API_PREFIX}/extensions/:id/versions`]: "submit_version",
};

/**
 * Which group a developer API request counts against, from its method and the route it reaches (its path in
 * the app's route table, server/http/route-table.ts; null for none). A POST that reaches no route (a 404/405),
 * OPTIONS, … fit no group and are not counted, so a client's typo cannot burn its 10-per-hour extension budget.
 */
export function rateGroupOf(method: string, route: string | null): RateGroup | null {
  switch (method) {
    case "GET":
    case "HEAD":
      return "get";
    case "DELETE":
      return "delete";
    case "PUT":
    case "PATCH":
      return "put_patch";
    case "POST":
      return route === null ? null : (POST_ROUTE_GROUPS[route] ?? null);
    default:
      return null;
  }
}

export interface RateHeaders {
  "X-RateLimit-Limit": string;
  "X-RateLimit-Remaining": string;
  "X-RateLimit-Reset": string;
}

interface Window {
  startMs: number;
  count: number;
}

export class RateLimiter {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly clock: Clock,
    private enabled: boolean,
  ) {}

  get isEnabled(): boolean {
    return this.enabled;
  }

  setEnabled(on: boolean): void {
    this.enabled = on;
  }

  /** Counts one request, or throws 429 `rate_limited` without counting it. Returns the headers to send. */
  take(accountId: string, group: RateGroup): RateHeaders | null {
    if (!this.enabled) return null;
    const { limit, periodMs, label } = RATE_GROUPS[group];
    const now = this.clock.nowMs();
    const key = `${accountId}\u0000${group}`;
    let w = this.current(key, periodMs, now);
    if (!w) {
      w = { startMs: now, count: 0 };
      this.windows.set(key, w);
    }
    const resetMs = w.startMs + periodMs;
    if (w.count >= limit) {
      const retryAfter = Math.max(1, Math.ceil((resetMs - now) / 1000));
      const err = errors.rateLimited(retryAfter, label);
      Object.assign(err.headers!, headers(limit, 0, resetMs));
      throw err;
    }
    w.count++;
    return headers(limit, limit - w.count, resetMs);
  }

  /**
   * Where the window stands, counting nothing and never refusing: for a request that reaches no route. With no
   * open window, one that would open now.
   */
  peek(accountId: string, group: RateGroup): RateHeaders | null {
    if (!this.enabled) return null;
    const { limit, periodMs } = RATE_GROUPS[group];
    const now = this.clock.nowMs();
    const w = this.current(`${accountId}\u0000${group}`, periodMs, now);
    return w
      ? headers(limit, Math.max(0, limit - w.count), w.startMs + periodMs)
      : headers(limit, limit, now + periodMs);
  }

  /** The open window of a key; a clock moved backwards past a window's start closes it too. */
  private current(key: string, periodMs: number, now: number): Window | null {
    const w = this.windows.get(key);
    return w && now < w.startMs + periodMs && now >= w.startMs ? w : null;
  }

  /** Forgets every window (control-plane reset). */
  clear(): void {
    this.windows.clear();
  }
}

function headers(limit: number, remaining: number, resetMs: number): RateHeaders {
  return {
    "X-RateLimit-Limit": String(limit),
    "X-RateLimit-Remaining": String(remaining),
    "X-RateLimit-Reset": String(Math.ceil(resetMs / 1000)),
  };
}
