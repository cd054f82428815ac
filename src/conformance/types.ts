/** The vocabulary of `ext conformance` and `ext proxy`: one HTTP exchange, one check's outcome, one run. */

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

export interface CheckResult {
  id: string;
  group: string;
  name: string;
  kind: CheckKind;
  outcome: Outcome;
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
  dryRun?: boolean;
  /** Aborting it stops the run after the request in flight; cleanup still runs. */
  signal?: AbortSignal;
  /** Called as each check ends (the CLI prints progress). */
  onResult?: (result: CheckResult) => void;
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
}
