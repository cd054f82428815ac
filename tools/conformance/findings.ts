/**
 * What a conformance run observed, as a platform profile: every check's answer compared with ext's answer to
 * the same request (server/profile/observe.ts), merged into one profile, each difference grouped by cause with
 * the checks it explains. Given a profile (`--profile FILE`), the run is also compared with it: entries the
 * target still shows, entries it answered for but no longer shows (stale), entries no check could see, and
 * differences the profile does not hold.
 */

import {
  explainEntry,
  keyOf,
  type Observation,
  type ObservedEntry,
  observe,
  operationOf,
  type Profile,
  ProfileBuilder,
  type ProfileEntry,
} from "../../server";
import type { CheckResult, Exchange, ExtAnswer, ProfileFindings } from "./types";

interface Seen {
  result: CheckResult;
  operation: string;
  ext: ExtAnswer;
  entries: ObservedEntry[];
}

/** Whether an entry applies to ext's answer `ext` of `operation`. */
function covers(e: ProfileEntry, operation: string, ext: ExtAnswer): boolean {
  if (e.operation !== operation) return false;
  const answer = e.answer;
  const status = typeof answer === "number" ? answer === ext.status : ext.status >= 400 === (answer === "error");
  return status && (e.code === undefined || e.code === ext.code);
}

const fold = (s: string) => s.replace(/\[\d+\]/g, "[]");

export function findings(
  results: CheckResult[],
  options: { target: string; at: string; given?: Profile },
): ProfileFindings {
  const builder = new ProfileBuilder("conformance", options.target, options.at);
  const seen: Seen[] = [];
  const explained = new Set<string>();
  // A check that reads another check's answer (a "not shown" choice of a value) shares what that answer shows.
  const byExchange = new Map<Exchange, Observation>();
  for (const result of results) {
    const r = result.exchange?.response;
    if (!r || result.outcome === "skipped") continue;
    if (!result.ext) {
      const shared = byExchange.get(result.exchange!);
      if (shared && result.outcome === "differed" && (shared.entries.length > 0 || shared.unexpressible.length > 0)) {
        builder.add(shared, { label: result.id, check: result.id });
        explained.add(result.id);
      }
      continue;
    }
    const path = result.exchange!.request.path;
    const operation = operationOf(result.exchange!.request.method, path.split("?")[0]!);
    if (!operation) continue;
    const observation = observe(operation, result.ext, { status: r.status, headers: r.headers, body: r.body });
    byExchange.set(result.exchange!, observation);
    builder.add(observation, { label: result.id, check: result.id });
    seen.push({ result, operation, ext: result.ext, entries: observation.entries });
    if (observation.entries.length > 0 || observation.unexpressible.length > 0) explained.add(result.id);
  }
  const profile = builder.profile();
  const summary = builder.summary();
  const leftOut = new Map(summary.leftOut.map((l) => [l.reason, l.seen]));
  // A difference no answer's shape shows (a value, a state: "status should be draft") is said as the check said it.
  for (const r of results) {
    if (r.outcome !== "differed" || explained.has(r.id)) continue;
    for (const problem of (r.note ?? "differs").split("; ").map(fold))
      leftOut.set(problem, [...(leftOut.get(problem) ?? []), r.id]);
  }
  const out: ProfileFindings = {
    profile,
    causes: summary.causes.map((c) => ({ cause: c.cause, checks: c.seen })),
    leftOut: [...leftOut].map(([cause, checks]) => ({ cause, checks: [...new Set(checks)] })),
  };
  if (options.given) out.check = compare(options.given, profile, seen, new Set(summary.leftOut.flatMap((l) => l.seen)));
  return out;
}

/** The run against a given profile; marks each check as the profile says, or stale. */
function compare(given: Profile, observed: Profile, seen: Seen[], leftOut: Set<string>): ProfileFindings["check"] {
  const givenKeys = new Set(given.entries.map(keyOf));
  const observedKeys = new Set(observed.entries.map(keyOf));
  const check = {
    confirmed: [] as string[],
    stale: [] as string[],
    notExercised: [] as string[],
    added: [] as string[],
  };
  for (const e of given.entries) {
    const words = explainEntry(e);
    if (observedKeys.has(keyOf(e))) check.confirmed.push(words);
    else {
      const exercisedBy = seen.filter((s) => covers(e, s.operation, s.ext));
      if (exercisedBy.length === 0) check.notExercised.push(words);
      else {
        check.stale.push(words);
        for (const s of exercisedBy) s.result.stale = [...(s.result.stale ?? []), words];
      }
    }
  }
  for (const e of observed.entries) if (!givenKeys.has(keyOf(e))) check.added.push(explainEntry(e));
  for (const s of seen) {
    const r = s.result;
    if (r.outcome === "differed" && s.entries.length > 0 && !leftOut.has(r.id))
      r.asProfiled = s.entries.every((e) => givenKeys.has(keyOf(e)));
  }
  return check;
}
