/** The vocabulary of `ext conformance` and `ext proxy`: one HTTP exchange, one check's outcome, one run. */
import type { Profile } from "../../server";

/** One request and its answer, as recorded; keys and secret values already replaced by placeholders. */
export interface Exchange {
  request: { method: string; path: string; headers: Record<string, string>; body?: string };
  response: { status: number; headers: Record<string, string>; body: string } | null;
  /** Set when no answer came (connection refused, aborted). */
  failure?: string;
}

/**
 * `spec`: the spec says it; a difference fails the run. `choice`: the spec says "not shown" and ext made a
 * choice (docs/behaviour.md); a difference is reported as "the target chose X, ext chose Y" and fails nothing.
 */
export type CheckKind = "spec" | "choice";

export type Outcome = "passed" | "differed" | "skipped";

/** What ext answers the check's request: its status, and an error's code. */
export interface ExtAnswer {
  status: number;
  code?: string;
}

export interface CheckResult {
  id: string;
  group: string;
  name: string;
  kind: CheckKind;
  outcome: Outcome;
  /** ext's answer to the same request, when the check knows it (the profile is derived from these). */
  ext?: ExtAnswer;
  /** With --profile: a difference the profile holds, entry for entry (not a failure). */
  asProfiled?: boolean;
  /** With --profile: the profile's entries this check's answer no longer shows. */
  stale?: string[];
  /** What ext (and the spec, for `spec` checks) answers. */
  expected: string;
  /** What the target answered, in the same words; empty when passed. */
  got: string;
  /** Why it was skipped, or what differed, in one line. */
  note?: string;
  exchange?: Exchange;
}

export interface Target {
  /** The server's origin, or a URL ending in /developer/v1. */
  url: string;
  apiKey: string;
  readOnlyKey?: string;
}

export interface RunOptions {
  includeRateLimits?: boolean;
  /** The profile to check the target against (`--profile FILE`): its entries confirmed, stale or not exercised. */
  profile?: Profile;
  dryRun?: boolean;
  /** Aborting it stops the run after the request in flight; cleanup still runs. */
  signal?: AbortSignal;
  /** Called as each check ends (the CLI prints progress). */
  onResult?: (result: CheckResult) => void;
  /** Each request's wait (tools/calls/transport.ts); default 30 s. */
  timeoutMs?: number;
}

export interface Cleanup {
  /** The scratch extension this run created, or null when it created none. */
  extensionId: string | null;
  /** True when it was deleted (or never created). */
  removed: boolean;
  /** When not removed: exactly why. */
  reason?: string;
}

export interface RunReport {
  target: string;
  startedAt: string;
  dryRun: boolean;
  interrupted: boolean;
  results: CheckResult[];
  cleanup: Cleanup;
  /** Requests the run sent, in order (all of them; with --dry-run, those it would send). */
  requests: { method: string; path: string }[];
  /** Set when the target's rate limits stopped the run (exit 75): where, why, and when to retry. */
  rateLimited?: {
    check: string | null;
    request: string;
    reason: string;
    retryAfterSeconds: number | null;
    /** When the target has room again (ISO 8601), when it said. */
    retryAt: string | null;
  };
  /** What the run observed, as a profile, with each difference grouped by cause. */
  observed: ProfileFindings;
}

/** A difference and the checks it explains. */
export interface Cause {
  cause: string;
  checks: string[];
}

export interface ProfileFindings {
  /** The differences a profile can hold, as one (what `--save-profile` writes). */
  profile: Profile;
  /** One line per cause, with the checks it explains. */
  causes: Cause[];
  /** Differences a profile cannot hold (another rule, another state), with their checks. */
  leftOut: Cause[];
  /** With --profile: how the target compares with it. */
  check?: ProfileCheck;
}

export interface ProfileCheck {
  /** Entries the target still shows. */
  confirmed: string[];
  /** Entries the target answered for but no longer shows: the platform changed. */
  stale: string[];
  /** Entries no check of this run could see (an answer the run never got). */
  notExercised: string[];
  /** Differences the target shows that the profile does not hold. */
  added: string[];
}
