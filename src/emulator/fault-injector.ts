/**
 * Fault injection for developer-API requests. A rule matches on method and path pattern and then either
 * answers with a chosen error (in the usual envelope) or delays the request and lets it proceed — for the
 * next N matching requests, with a probability, or both. It runs as the first onRequest hook, before the
 * API key is checked, so a fault can stand in for any response, a 401 included.
 * With no rule armed the hook costs one array-length check.
 */
import { Elysia } from "elysia";
import type { Clock } from "../clock";
import { API_PREFIX, DEPLOY_LIMITS_PREFIX } from "../config";
import { errors } from "../errors/catalog";
import { errorResponse } from "../errors/handler";
import { pathOf } from "../http/auth";
import { newId } from "../ids";
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
  re: RegExp;
}

/** Patterns are relative to /developer/v1 unless they already start with a developer-API base. */
export function normalizePattern(pattern: string): string {
  const p = pattern.startsWith("/") ? pattern : `/${pattern}`;
  if (p === API_PREFIX || p.startsWith(API_PREFIX + "/") || p.startsWith(DEPLOY_LIMITS_PREFIX + "/")) return p;
  return API_PREFIX + (p === "/" ? "" : p);
}

/** Exact segments, `:param` = one segment, `*` = anything (slashes included); a trailing slash is ignored. */
export function patternToRegExp(pattern: string): RegExp {
  const body = pattern
    .replace(/\/+$/, "")
    .split("*")
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/:[A-Za-z0-9_]+/g, "[^/]+"))
    .join(".*");
  return new RegExp(`^${body}/?$`);
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
    this.armed.push({ rule, method: rule.method, re: patternToRegExp(path) });
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

  /** The first armed rule matching this request that decides to fire (probability), counted as fired. */
  take(method: string, path: string): FaultRule | null {
    for (let i = 0; i < this.armed.length; i++) {
      const a = this.armed[i]!;
      if (a.method !== null && a.method !== method) continue;
      if (!a.re.test(path)) continue;
      if (a.rule.probability < 1 && this.random() >= a.rule.probability) continue;
      a.rule.fired++;
      if (a.rule.times !== null && a.rule.fired >= a.rule.times) this.armed.splice(i, 1);
      return a.rule;
    }
    return null;
  }

  /** The response a failing rule sends; null for a latency-only rule. */
  static responseFor(rule: FaultRule): Response | null {
    if (rule.status === null) return null;
    const code = rule.code ?? CODE_BY_STATUS[rule.status] ?? "injected_fault";
    const err = errors.injectedFault(rule.status, code, rule.message, rule.id);
    return errorResponse(err);
  }
}

/** The onRequest hook; register it before the API gate. */
export function faultHook(faults: FaultInjector) {
  return new Elysia({ name: "fault-injection" }).onRequest(async ({ request }) => {
    if (faults.armedCount === 0) return;
    const rule = faults.take(request.method, pathOf(request.url));
    if (!rule) return;
    if (rule.latencyMs > 0) await Bun.sleep(rule.latencyMs);
    return FaultInjector.responseFor(rule) ?? undefined;
  });
}
