/**
 * The building blocks of a conformance run: a shared context, and `judge()`, which turns one recorded
 * exchange and what ext answers into a result. The checks themselves are data (checks-*.ts): an id, a
 * group, a name, what is sent, what is expected.
 */
import type { ApiClient } from "../../client/index";
import { TransportError } from "../calls/transport";
import { groupOf, type RateBudget, type RateGroup, RateLimitStop } from "./rate-budget";
import type { Redactor } from "./redact";
import { envelopeProblems, isObject, parseJson } from "./shape";
import { DRY_RUN_STATUS, type Transport } from "./transport";
import type { CheckKind, CheckResult, Exchange, ExtAnswer, RunOptions, Target } from "./types";

export const SECRET_LABEL = "<secret value>";
/** A JSON answer's problems, given its parsed body. */
export type BodyRule = (body: unknown, exchange: Exchange) => string[];

export interface Context {
  target: Target;
  options: RunOptions;
  transport: Transport;
  redactor: Redactor;
  api: ApiClient;
  readOnly: ApiClient | null;
  /** A random word that makes this run's names unique. */
  runId: string;
  scratchName: string;
  scratchId: string | null;
  /** True once the scratch create was sent: an answer lost on the way may still have created it. */
  createAttempted: boolean;
  /** Every extension this run created (the scratch one, and any a target wrongly created). */
  created: string[];
  versionId: string | null;
  bundleBytes: number;
  secretName: string;
  /** Ids of the account's extensions before the run. */
  before: string[] | null;
  results: CheckResult[];
  /** The target's windows, as its answers tell them. */
  budget: RateBudget;
  /** Set when the target's rate limits stopped the run: the next check records why and the run ends. */
  stopped: RateLimitStop | null;
  /** Requests per rate group the whole run sends (counted by a dry run); null in a dry run. */
  planned: Partial<Record<RateGroup, number>> | null;
}

/**
 * Stops the run, before `beforeCheck`, when the target's window for `method path` cannot hold the rest of
 * the run's requests of that group (as a dry run counts them): it says when the run can start again.
 */
export function requireRoom(ctx: Context, method: string, path: string, beforeCheck: string): void {
  const group = groupOf(method, path);
  if (!ctx.planned || !group || ctx.stopped) return;
  const sent = ctx.transport.sent.filter((e) => groupOf(e.request.method, e.request.path) === group).length;
  try {
    ctx.budget.require(method, path, Math.max(1, (ctx.planned[group] ?? 0) - sent));
  } catch (e) {
    if (e instanceof RateLimitStop) e.check = beforeCheck;
    throw e;
  }
}

export interface CheckMeta {
  id: string;
  group: string;
  name: string;
  kind?: CheckKind;
}

export interface Expectation {
  status: number;
  /** What ext answers, in a few words, beside the status (e.g. `{extension:{id,slug,name,status,createdAt}}`). */
  describe: string;
  /** An error answer: the envelope, with this code when given. */
  error?: { code?: string };
  /** No body at all (204). */
  empty?: boolean;
  body?: BodyRule;
  headers?: (headers: Record<string, string>) => string[];
}

const MAX_SHOWN = 600;
const clip = (s: string) => (s.length > MAX_SHOWN ? `${s.slice(0, MAX_SHOWN)}…` : s);

export function answerText(exchange: Exchange): string {
  if (!exchange.response) return exchange.failure ?? "no answer";
  const r = exchange.response;
  return `${r.status}${r.body ? ` ${clip(r.body)}` : " (no body)"}`;
}

/** The problems of one exchange against an expectation (none: it passed). */
export function problemsOf(exchange: Exchange, expect: Expectation): string[] {
  const r = exchange.response;
  if (!r) return [exchange.failure ?? "no answer"];
  const out: string[] = [];
  if (r.status !== expect.status) out.push(`status should be ${expect.status}, got ${r.status}`);
  if (expect.empty) {
    if (r.body !== "") out.push("the body should be empty: the spec's answer has none");
  } else {
    const parsed = parseJson(r.body);
    if (!parsed.ok) out.push("the body is not JSON");
    else if (expect.error) out.push(...envelopeProblems(r.status, parsed.value, expect.error.code));
    else if (r.status === expect.status && expect.body) out.push(...expect.body(parsed.value, exchange));
    if (!(r.headers["content-type"] ?? "").startsWith("application/json"))
      out.push(`Content-Type should be application/json, got ${r.headers["content-type"] ?? "none"}`);
  }
  if (expect.headers) out.push(...expect.headers(r.headers));
  return out;
}

/** After a rate-limit stop the check that could not run is named, and the run ends (it cleans up first). */
function stopIfLimited(ctx: Context, meta: CheckMeta): void {
  if (!ctx.stopped) return;
  ctx.stopped.check ??= meta.id;
  throw ctx.stopped;
}

export function record(ctx: Context, result: CheckResult): CheckResult {
  ctx.results.push(result);
  ctx.options.onResult?.(result);
  return result;
}

export function skip(ctx: Context, meta: CheckMeta, note: string): void {
  stopIfLimited(ctx, meta);
  record(ctx, { ...meta, kind: meta.kind ?? "spec", outcome: "skipped", expected: "", got: "", note });
}

/** Records the check of the last exchange against `expect`. */
export function judge(ctx: Context, meta: CheckMeta, expect: Expectation, exchange = ctx.transport.last()): boolean {
  stopIfLimited(ctx, meta);
  const expected = `${expect.status} ${expect.describe}`;
  const ext: ExtAnswer = { status: expect.status, ...(expect.error?.code ? { code: expect.error.code } : {}) };
  if (exchange.response?.status === DRY_RUN_STATUS) {
    record(ctx, { ...meta, kind: meta.kind ?? "spec", outcome: "skipped", expected, got: "", note: "dry run" });
    return true;
  }
  const problems = problemsOf(exchange, expect);
  const kind = meta.kind ?? "spec";
  record(ctx, {
    ...meta,
    kind,
    ext,
    outcome: problems.length === 0 ? "passed" : "differed",
    expected,
    got: problems.length === 0 ? "" : answerText(exchange),
    ...(problems.length === 0 ? {} : { note: problems.join("; ") }),
    exchange,
  });
  return problems.length === 0;
}

/**
 * A "not shown" choice: what ext chose against what the target did, never a failure of the run. `extAnswer`:
 * ext's answer to the request, when `ext` is not already "STATUS code" (from which it is read).
 */
export function choice(
  ctx: Context,
  meta: Omit<CheckMeta, "kind">,
  ext: string,
  target: string | null,
  extAnswer?: ExtAnswer,
): void {
  stopIfLimited(ctx, { ...meta, kind: "choice" });
  const exchange = ctx.transport.sent.at(-1);
  const statusAndCode = /^(\d{3})(?: ([a-z_]+))?$/.exec(ext);
  const answer =
    extAnswer ??
    (statusAndCode
      ? { status: Number(statusAndCode[1]), ...(statusAndCode[2] ? { code: statusAndCode[2] } : {}) }
      : undefined);
  if (target === null || exchange?.response?.status === DRY_RUN_STATUS) {
    const note = ctx.options.dryRun ? "dry run" : "nothing to compare: the request got no usable answer";
    record(ctx, { ...meta, kind: "choice", outcome: "skipped", expected: ext, got: "", note });
    return;
  }
  const same = ext === target;
  record(ctx, {
    ...meta,
    kind: "choice",
    ...(answer ? { ext: answer } : {}),
    outcome: same ? "passed" : "differed",
    expected: ext,
    got: same ? "" : target,
    ...(same ? {} : { note: `the target chose ${target}, ext chose ${ext}` }),
    ...(exchange ? { exchange } : {}),
  });
}

/** The parsed JSON body of the last answer, or undefined. */
export function lastJson(ctx: Context): unknown {
  const r = ctx.transport.last().response;
  if (!r) return undefined;
  const parsed = parseJson(r.body);
  return parsed.ok ? parsed.value : undefined;
}

/** `status code` of the last answer, as a choice compares it: `404 not_found`, `204`, `200`. */
export function statusAndCode(ctx: Context): string {
  const r = ctx.transport.last().response;
  if (!r) return ctx.transport.last().failure ?? "no answer";
  const body = lastJson(ctx);
  const code = isObject(body) && isObject(body.error) ? ` ${String(body.error.code)}` : "";
  return `${r.status}${code}`;
}

/**
 * Sends, swallowing a failed connection (it is recorded on the exchange); rethrows when the run was stopped,
 * and the transport's own errors (a target that keeps a request waiting past the timeout, a key withheld
 * after a failed connection, a server no longer the one the run started with): those end the run. A
 * rate-limit stop is kept for the check that follows, which names itself in it (stopIfLimited).
 */
export async function attempt(ctx: Context, send: () => Promise<unknown>): Promise<void> {
  if (ctx.stopped) return;
  try {
    await send();
  } catch (e) {
    if (ctx.options.signal?.aborted || e instanceof TransportError) throw e;
    if (e instanceof RateLimitStop) ctx.stopped = e;
  }
}

/** Headers of a raw JSON request with the developer key. */
export const json = (ctx: Context, key = ctx.target.apiKey): Record<string, string> => ({
  authorization: `Bearer ${key}`,
  "content-type": "application/json",
});
