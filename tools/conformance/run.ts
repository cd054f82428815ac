/**
 * One conformance run against a target: the checks in order, then the cleanup, which always runs — after a
 * failure, a target that stops answering, or an abort (Ctrl-C) — on its own transport, so an aborted run
 * can still delete what it created. It deletes only ids this run's own creates answered (or, when a create
 * got no answer, the one extension carrying this run's unique scratch name), never another extension.
 */

import { createTransport as createOutbound, DEFAULT_REQUEST_TIMEOUT_SECONDS } from "../calls/transport";
import {
  authChecks,
  extensionChecks,
  missingExtensionChecks,
  requiredFieldsCheck,
  scratchExtensionChecks,
} from "./checks-extensions";
import { forbiddenChecks, rateLimitChecks, secretChecks, secretLeakCheck } from "./checks-secrets";
import { installAndLimitChecks, versionChecks } from "./checks-versions";
import { nowIso, nowMs } from "./clock";
import { findings } from "./findings";
import { groupOf, RateBudget, type RateGroup, RateLimitStop } from "./rate-budget";
import { createRedactor } from "./redact";
import { isObject, parseJson } from "./shape";
import { type Context, judge, skip } from "./step";
import { createTransport, DRY_RUN_STATUS, type Transport } from "./transport";
import type { Cleanup, RunOptions, RunReport, Target } from "./types";

/** Every scratch extension's name starts so: recognisable in a dashboard, and by the cleanup. */
export const SCRATCH_PREFIX = "ext-conformance-scratch";

const SCRATCH_CHECKS = [
  "extensions.get",
  "extensions.list-created",
  "extensions.patch",
  "extensions.patch-invalid",
  "versions.list-empty",
  "versions.submit",
  "versions.list",
  "versions.submit-invalid",
  "installs.get",
  "limits.get",
  "secrets.put",
  "secrets.list",
  "secrets.replace",
  "secrets.put-invalid",
  "secrets.delete",
  "secrets.list-after-delete",
];

function randomId(): string {
  const bytes = new Uint8Array(6);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Requests per rate group of a whole run, as a dry run (nothing sent) counts them. */
async function plannedRequests(target: Target): Promise<Partial<Record<RateGroup, number>>> {
  // Without the 429 check: it spends the GET window on purpose, after everything else.
  const dry = await runConformance(target, { dryRun: true });
  const counts: Partial<Record<RateGroup, number>> = {};
  for (const r of dry.requests) {
    const group = groupOf(r.method, r.path);
    if (group) counts[group] = (counts[group] ?? 0) + 1;
  }
  return counts;
}

export async function runConformance(target: Target, options: RunOptions = {}): Promise<RunReport> {
  const redactor = createRedactor();
  redactor.add(target.apiKey, "<api-key>");
  if (target.readOnlyKey) redactor.add(target.readOnlyKey, "<read-only-key>");
  const budget = new RateBudget();
  // One outbound transport for every request of the run, the cleanup's included.
  const outbound = createOutbound({ timeoutMs: options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_SECONDS * 1000 });
  const transport = createTransport(target.url, redactor, {
    dryRun: options.dryRun,
    signal: options.signal,
    budget,
    outbound,
  });
  const runId = randomId();
  const ctx: Context = {
    target,
    options,
    transport,
    redactor,
    runId,
    api: transport.client(target.apiKey),
    readOnly: target.readOnlyKey ? transport.client(target.readOnlyKey) : null,
    scratchName: `${SCRATCH_PREFIX}-${runId}`,
    scratchId: null,
    createAttempted: false,
    created: [],
    versionId: null,
    bundleBytes: 0,
    secretName: `CONFORMANCE_${runId.toUpperCase()}`,
    before: null,
    results: [],
    budget,
    stopped: null,
    planned: options.dryRun ? null : await plannedRequests(target),
  };
  const startedAt = nowIso();
  let interrupted = false;
  let limited: RateLimitStop | null = null;
  try {
    await authChecks(ctx);
    await extensionChecks(ctx);
    const id = ctx.scratchId ?? (options.dryRun ? "{scratch-id}" : null);
    if (id) {
      await scratchExtensionChecks(ctx, id);
      await versionChecks(ctx, id);
      await installAndLimitChecks(ctx, id);
      await secretChecks(ctx, id);
      await forbiddenChecks(ctx, id);
    } else {
      for (const check of SCRATCH_CHECKS)
        skip(
          ctx,
          { id: check, group: check.split(".")[0]!, name: check },
          "the scratch extension could not be created",
        );
    }
    await requiredFieldsCheck(ctx);
    await missingExtensionChecks(ctx);
  } catch (e) {
    if (e instanceof RateLimitStop) limited = e;
    else if (!options.signal?.aborted) {
      // Not a difference but a fault of the run itself: still clean up before saying so.
      await cleanUp(ctx, createTransport(target.url, redactor, { dryRun: options.dryRun, outbound }));
      throw e;
    } else interrupted = true;
  }
  // Its own transport: the run's may be aborted. Same redactor and request list.
  const cleanupTransport = createTransport(target.url, redactor, { dryRun: options.dryRun, outbound });
  const cleanup = await cleanUp(ctx, cleanupTransport);
  if (!interrupted && !limited) {
    // Last, once the scratch extension is gone: it spends the GET window the cleanup's list needs.
    try {
      // Its own transport, which reports a 429 instead of waiting it out.
      const rateTransport = createTransport(target.url, redactor, {
        dryRun: options.dryRun,
        signal: options.signal,
        waitOutRateLimits: false,
        outbound,
      });
      try {
        await rateLimitChecks({ ...ctx, transport: rateTransport, api: rateTransport.client(target.apiKey) });
      } finally {
        cleanupTransport.sent.push(...rateTransport.sent);
      }
    } catch (e) {
      if (!options.signal?.aborted) throw e;
      interrupted = true;
    }
  }
  transport.sent.push(...cleanupTransport.sent);
  if (!interrupted && !limited) secretLeakCheck(ctx);
  return {
    target: transport.origin,
    startedAt,
    dryRun: Boolean(options.dryRun),
    interrupted,
    results: ctx.results,
    cleanup,
    requests: transport.sent.map((e) => ({ method: e.request.method, path: e.request.path })),
    ...(limited ? { rateLimited: rateLimitedOf(limited) } : {}),
    observed: findings(ctx.results, {
      target: transport.origin,
      at: startedAt,
      ...(options.profile ? { given: options.profile } : {}),
    }),
  };
}

function rateLimitedOf(stop: RateLimitStop): NonNullable<RunReport["rateLimited"]> {
  return {
    check: stop.check,
    request: stop.request,
    reason: stop.reason,
    retryAfterSeconds: stop.retryAfterSeconds,
    retryAt: stop.retryAfterSeconds === null ? null : new Date(nowMs() + stop.retryAfterSeconds * 1000).toISOString(),
  };
}

async function cleanUp(runCtx: Context, transport: Transport): Promise<Cleanup> {
  // The cleanup runs whatever stopped the run (a rate limit included), and records its own checks.
  const ctx: Context = { ...runCtx, transport, stopped: null };
  const auth = { authorization: `Bearer ${ctx.target.apiKey}` };
  const ids = ctx.options.dryRun ? ["{scratch-id}"] : [...new Set(ctx.created)];
  if (ids.length === 0 && ctx.createAttempted && !ctx.options.dryRun) {
    // The create's answer was lost or unreadable: the extension may exist all the same. Only the one bearing
    // this run's unique name is ours.
    const found = await listIds(transport, auth, ctx.scratchName);
    if (found === null)
      return {
        extensionId: null,
        removed: false,
        reason: `the create got no readable answer and the list could not be read to look for "${ctx.scratchName}"`,
      };
    ids.push(...found);
  }
  if (ids.length === 0) return { extensionId: null, removed: true };
  const remaining: string[] = [];
  for (const id of ids) {
    let problem: string | null = null;
    try {
      await transport.raw({
        method: "DELETE",
        path: `/developer/v1/extensions/${encodeURIComponent(id)}`,
        headers: auth,
      });
      const r = transport.last().response;
      if (r && r.status !== 204 && r.status !== 404 && r.status !== DRY_RUN_STATUS)
        problem = `DELETE answered ${r.status}${codeOf(r.body)}`;
    } catch (e) {
      problem = `DELETE got no answer (${(e as Error).message})`;
    }
    if ((id === ctx.scratchId || ctx.options.dryRun) && !problem) {
      judge(
        ctx,
        {
          id: "extensions.delete",
          group: "extensions",
          name: "DELETE /extensions/:id of the scratch extension answers 204 with no body",
        },
        { status: 204, describe: "no body", empty: true },
      );
    }
    if (problem) remaining.push(`${id}: ${problem}`);
  }
  if (ctx.scratchId === null && !ctx.options.dryRun)
    skip(
      ctx,
      { id: "extensions.delete", group: "extensions", name: "DELETE /extensions/:id" },
      "no scratch extension was created",
    );
  if (remaining.length > 0) {
    const first = ids.find((id) => remaining.some((r) => r.startsWith(id))) ?? ids[0]!;
    return {
      extensionId: first,
      removed: false,
      reason: `${remaining.join("; ")}; delete it with: ext extensions delete ${first}`,
    };
  }
  if (ctx.before && !ctx.options.dryRun) {
    const after = await listIds(transport, auth, null);
    const restored = after !== null && after.sort().join(",") === ctx.before.join(",");
    ctx.results.push({
      id: "cleanup.list-restored",
      group: "cleanup",
      name: "the account's extension list is as the run found it",
      kind: "spec",
      outcome: restored ? "passed" : "differed",
      expected: ctx.before.join(", ") || "(none)",
      got: restored ? "" : (after ?? ["(unreadable)"]).join(", ") || "(none)",
    });
    ctx.options.onResult?.(ctx.results.at(-1)!);
  }
  return { extensionId: ctx.scratchId ?? ids[0] ?? null, removed: true };
}

function codeOf(body: string): string {
  const parsed = parseJson(body);
  return parsed.ok && isObject(parsed.value) && isObject(parsed.value.error)
    ? ` ${String(parsed.value.error.code)}`
    : "";
}

/** Ids of the account's extensions (only those named `name` when given), or null when the list cannot be read. */
async function listIds(
  transport: Transport,
  auth: Record<string, string>,
  name: string | null,
): Promise<string[] | null> {
  try {
    await transport.raw({ method: "GET", path: "/developer/v1/extensions", headers: auth });
  } catch {
    return null;
  }
  const r = transport.last().response;
  const parsed = r && r.status === 200 ? parseJson(r.body) : { ok: false as const };
  if (!parsed.ok || !isObject(parsed.value) || !Array.isArray(parsed.value.extensions)) return null;
  return parsed.value.extensions
    .filter((e): e is Record<string, unknown> => isObject(e) && (name === null || e.name === name))
    .map((e) => String(e.id));
}
