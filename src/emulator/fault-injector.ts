/**
 * Fault injection for developer-API requests. A rule matches on method and path pattern and then either
 * answers with a chosen error (in the usual envelope) or delays the request and lets it proceed — for the
 * next N matching requests, with a probability, or both. It runs before the API key is checked, so a fault
 * can stand in for any response, a 401 included.
 */
import { Elysia } from "elysia";
import type { Clock } from "../clock";
import { API_PREFIX, DEPLOY_LIMITS_PREFIX } from "../config";
import type { ApiError } from "../errors/api-error";
import { errors } from "../errors/catalog";
import { pathOf } from "../http/paths";
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
  matcher: { test(path: string): boolean };
}

/** Patterns are relative to /developer/v1 unless they already start with a developer-API base. */
export function normalizePattern(pattern: string): string {
  const p = pattern.startsWith("/") ? pattern : `/${pattern}`;
  if (p === API_PREFIX || p.startsWith(`${API_PREFIX}/`) || p.startsWith(`${DEPLOY_LIMITS_PREFIX}/`)) return p;
  return API_PREFIX + (p === "/" ? "" : p);
}

type Token = { kind: "literal"; text: string } | { kind: "param" } | { kind: "star" };

function tokenize(pattern: string): Token[] {
  const tokens: Token[] = [];
  let literal = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    const param = c === ":" ? /^:[A-Za-z0-9_]+/.exec(pattern.slice(i)) : null;
    if (c !== "*" && !param) {
      literal += c;
      continue;
    }
    if (literal) tokens.push({ kind: "literal", text: literal });
    literal = "";
    if (param) {
      tokens.push({ kind: "param" });
      i += param[0].length - 1;
    } else if (tokens.at(-1)?.kind !== "star") tokens.push({ kind: "star" });
  }
  if (literal) tokens.push({ kind: "literal", text: literal });
  return tokens;
}

/**
 * Exact segments, `:param` = one segment, `*` = anything (slashes included); a trailing slash is ignored.
 * Matched by walking the set of reachable path positions token by token — linear in the path for each
 * token — never by a backtracking RegExp: `*a*a*a*a*b` against a long path must not freeze the server.
 */
export function compilePattern(pattern: string): { test(path: string): boolean } {
  const tokens = tokenize(pattern.replace(/\/+$/, ""));
  return {
    test(rawPath) {
      const path = rawPath.length > 1 && rawPath.endsWith("/") ? rawPath.slice(0, -1) : rawPath;
      const n = path.length;
      let reach = new Uint8Array(n + 1);
      reach[0] = 1;
      for (const token of tokens) {
        const next = new Uint8Array(n + 1);
        let any = false;
        if (token.kind === "star") {
          const first = reach.indexOf(1);
          if (first >= 0) next.fill(1, first);
          any = first >= 0;
        } else {
          for (let i = 0; i <= n; i++) {
            if (!reach[i]) continue;
            if (token.kind === "literal") {
              if (path.startsWith(token.text, i)) {
                next[i + token.text.length] = 1;
                any = true;
              }
            } else {
              // One whole segment, at least one character: every end up to the next "/".
              for (let j = i; j < n && path[j] !== "/"; j++) {
                next[j + 1] = 1;
                any = true;
              }
            }
          }
        }
        if (!any) return false;
        reach = next;
      }
      return reach[n] === 1;
    },
  };
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

  /** The first armed rule matching this request that decides to fire (probability), counted as fired. */
  take(method: string, path: string): FaultRule | null {
    for (let i = 0; i < this.armed.length; i++) {
      const a = this.armed[i]!;
      if (a.method !== null && a.method !== method) continue;
      if (!a.matcher.test(path)) continue;
      if (a.rule.probability < 1 && this.random() >= a.rule.probability) continue;
      a.rule.fired++;
      if (a.rule.times !== null && a.rule.fired >= a.rule.times) this.armed.splice(i, 1);
      return a.rule;
    }
    return null;
  }

  /** The error a failing rule answers with; null for a latency-only rule. */
  static errorFor(rule: FaultRule): ApiError | null {
    if (rule.status === null) return null;
    const code = rule.code ?? CODE_BY_STATUS[rule.status] ?? "injected_fault";
    return errors.injectedFault(rule.status, code, rule.message, rule.id);
  }
}

/**
 * A rule's delay. It ends as soon as the client goes away: no one waits for the answer any more, and the
 * request then proceeds as a real server's would, seeing a closed connection.
 */
function latency(ms: number, client: AbortSignal): Promise<void> {
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

/**
 * The onRequest hook, registered before the request gates: a fault is thrown like any refusal (the one onError
 * answers it, the request log records it), so it can stand in for any response, a 401 or 429 included.
 * Async because a rule's latency holds the request; with no rule armed it returns at once.
 */
export function faultHook(faults: FaultInjector) {
  return new Elysia({ name: "fault-injection" }).onRequest(async ({ request }) => {
    if (faults.armedCount === 0) return;
    const rule = faults.take(request.method, pathOf(request.url));
    if (!rule) return;
    if (rule.latencyMs > 0) await latency(rule.latencyMs, request.signal);
    const fault = FaultInjector.errorFor(rule);
    if (fault) throw fault;
  });
}
