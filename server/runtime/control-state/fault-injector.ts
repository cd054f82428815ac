/**
 * Fault injection for developer-API requests. A rule matches on method and path pattern (the app's one path
 * matcher, server/http/route-table.ts) and then either answers with a chosen error (in the usual envelope) or
 * delays the request and lets it proceed — for the next N matching requests, with a probability, or both.
 * The pre-routing step (server/http/pre-routing.ts) asks before the API key is checked, so a fault can stand in
 * for any response, a 401 or 429 included.
 */

import { API_PREFIX, DEPLOY_LIMITS_PREFIX } from "../../../common/addresses";
import type { Clock } from "../../base/clock";
import { newId } from "../../base/ids";
import type { ApiError } from "../../errors/api-error";
import { errors } from "../../errors/catalog";
import { compilePattern, type PathPattern } from "../../http/route-table";
import type { FaultRule, FaultRuleInput } from "./model";

/** Wire codes for the statuses a fault usually imitates; anything else gets `injected_fault`. */
const CODE_BY_STATUS: Record<number, string> = {
  400: "bad_request",
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  405: "method_not_allowed",
  409: "conflict",
  413: "payload_too_large",
  415: "unsupported_media_type",
  422: "validation_error",
  429: "rate_limited",
  500: "internal_error",
  502: "bad_gateway",
  503: "service_unavailable",
  504: "gateway_timeout",
};

interface ArmedRule {
  rule: FaultRule;
  method: string | null;
  matcher: PathPattern;
}

/** Patterns are relative to /developer/v1 unless they already start with a developer-API base. */
export function normalizePattern(pattern: string): string {
  const p = pattern.startsWith("/") ? pattern : `/${pattern}`;
  if (p === API_PREFIX || p.startsWith(`${API_PREFIX}/`) || p.startsWith(`${DEPLOY_LIMITS_PREFIX}/`)) return p;
  return API_PREFIX + (p === "/" ? "" : p);
}

export class FaultInjector {
  /** Rules that can still fire; the hot path reads only `armed.length`. */
  private armed: ArmedRule[] = [];
  /** Every rule created since the last clear, spent ones included (GET shows how often each fired). */
  private rules: FaultRule[] = [];

  constructor(
    private readonly clock: Clock,
    private readonly random: () => number = Math.random,
  ) {}

  get armedCount(): number {
    return this.armed.length;
  }

  add(input: FaultRuleInput): FaultRule {
    const path = normalizePattern(input.path);
    const rule: FaultRule = {
      id: newId("flt", this.clock.nowMs()),
      method: input.method ? input.method.toUpperCase() : null,
      path,
      // A rule with only a latency delays and proceeds; otherwise it fails (500 unless told).
      status: input.status ?? (input.latencyMs !== undefined ? null : 500),
      code: input.code ?? null,
      message: input.message ?? null,
      latencyMs: input.latencyMs ?? 0,
      times: input.times ?? null,
      probability: input.probability ?? 1,
      fired: 0,
      createdAt: this.clock.iso(),
    };
    this.rules.push(rule);
    this.armed.push({ rule, method: rule.method, matcher: compilePattern(path) });
    return rule;
  }

  list(): FaultRule[] {
    return this.rules.map((r) => ({ ...r }));
  }

  remove(id: string): boolean {
    const before = this.rules.length;
    this.rules = this.rules.filter((r) => r.id !== id);
    this.armed = this.armed.filter((a) => a.rule.id !== id);
    return this.rules.length < before;
  }

  clear(): void {
    this.rules = [];
    this.armed = [];
  }

  /**
   * The fault of the first armed rule matching this request that decides to fire (probability), counted as
   * fired: its latency and its error (null for a rule that only delays). Null when no rule fires.
   */
  decide(method: string, path: string): { latencyMs: number; error: ApiError | null } | null {
    for (let i = 0; i < this.armed.length; i++) {
      const a = this.armed[i]!;
      if (a.method !== null && a.method !== method) continue;
      if (!a.matcher.test(path)) continue;
      if (a.rule.probability < 1 && this.random() >= a.rule.probability) continue;
      a.rule.fired++;
      if (a.rule.times !== null && a.rule.fired >= a.rule.times) this.armed.splice(i, 1);
      return { latencyMs: a.rule.latencyMs, error: errorFor(a.rule) };
    }
    return null;
  }

  /**
   * A rule's delay. It ends as soon as the client goes away: no one waits for the answer any more, and the
   * request then proceeds as a real server's would, seeing a closed connection.
   */
  delay(ms: number, client: AbortSignal): Promise<void> {
    if (client.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      client.addEventListener("abort", done, { once: true });
      function done() {
        clearTimeout(timer);
        client.removeEventListener("abort", done);
        resolve();
      }
    });
  }
}

/** The error a failing rule answers with; null for a latency-only rule. */
function errorFor(rule: FaultRule): ApiError | null {
  if (rule.status === null) return null;
  const code = rule.code ?? CODE_BY_STATUS[rule.status] ?? "injected_fault";
  return errors.injectedFault(rule.status, code, rule.message, rule.id);
}
