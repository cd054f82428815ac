/**
 * Reset, seed and the state summary. A reset leaves the emulator as a fresh start would: no rows, no bundle files,
 * no rate windows, no fault rules, an empty request log, no pending auto-approvals, the real clock —
 * then the start-up fixture, if any, is loaded again. The rows go through the store (server/runtime/control-state/store.ts).
 */

import { errors } from "../errors/catalog";
import { activeProfileOf } from "../profile/explain";
import type { StateSummary } from "../runtime/control-state/model";
import type { Runtime } from "../runtime/runtime";
import type { BundleDir } from "../seed/bundle-files";
import type { SeedReport } from "../seed/model";
import { FixtureError, validateFixture } from "../seed/validate";

export interface ResetReport {
  /** The start-up fixture's load report, or null when the emulator started without one. */
  seed: SeedReport | null;
}

/** FixtureError problems → the 422 envelope's details; `file` names the fixture (an uploaded archive's). */
export function fixtureError(e: FixtureError, file?: string) {
  return errors.fixtureInvalid(
    e.problems.map((p) => ({ field: p.path, message: p.message })),
    file,
  );
}

/** What lives outside the rows and bundle files: cleared by a reset and by a snapshot's restore alike. */
function clearTransientState(runtime: Runtime): void {
  const { control } = runtime;
  runtime.rateLimiter.clear();
  control.faults.clear();
  control.requestLog.clear();
}

export function resetEmulator(runtime: Runtime): ResetReport {
  const { control } = runtime;
  control.cancelTimers();
  // A revoked dashboard key is not made again once its row is gone.
  runtime.services.dashboardKeys.beforeWipe();
  runtime.services.store.deleteAll();
  runtime.blobs.clear();
  clearTransientState(runtime);
  runtime.clock.reset();
  return { seed: runtime.startupFixture ? runtime.seed(runtime.startupFixture, runtime.startupBundleDir) : null };
}

/**
 * Back to a snapshot: its rows, bundle files and clock, with the rest as a fresh start leaves it (no rate
 * windows, fault rules, request log or pending auto-approvals).
 */
export function restoreSnapshot(runtime: Runtime, id: string): void {
  runtime.control.cancelTimers();
  runtime.snapshots.restore(id);
  clearTransientState(runtime);
}

/**
 * A seed body checked as `--seed` checks a file, once, whichever way it came (JSON, or the fixture.json of an
 * archive, `file`): a 422 with the fixture's own messages and paths.
 */
/**
 * Checks a seed body (JSON, or an export archive's fixture.json: `file` names it in messages) with the fixture's
 * own messages and paths, the same as `ext seed` prints, and loads it through the one loader — an export's
 * bundles from `bundleDir`: same rules as `--seed`, idempotent. The body is checked here once: the route
 * declares no body schema for the framework to check it again (a 20,000-account fixture is checked in one pass).
 */
export function seedEmulator(runtime: Runtime, body: unknown, file?: string, bundleDir: BundleDir = null): SeedReport {
  try {
    return runtime.seed(validateFixture(body, "seed body"), bundleDir);
  } catch (e) {
    if (e instanceof FixtureError) throw fixtureError(e, file);
    throw e;
  }
}

export function emulatorState(runtime: Runtime): StateSummary {
  const { control } = runtime;
  return {
    counts: { ...runtime.services.store.rowCounts(), bundleFiles: runtime.blobs.list().length },
    faults: control.faults.list().length,
    requestsLogged: control.requestLog.count,
    rateLimits: runtime.rateLimiter.isEnabled,
    autoApproveMs: runtime.config.autoApproveMs,
    clock: runtime.clock.state(),
    profile: runtime.profile ? activeProfileOf(runtime.profile) : null,
  };
}
