/**
 * Reset, seed and the state summary. A reset leaves the emulator as a fresh start would: no rows (every
 * table hangs off `accounts` with ON DELETE CASCADE, so one DELETE empties them all), no bundle files,
 * no rate windows, no fault rules, an empty request log, no pending auto-approvals, the real clock —
 * then the start-up fixture, if any, is loaded again.
 */
import type { Database } from "bun:sqlite";
import { errors } from "../errors/catalog";
import type { BundleDir } from "../fixtures/exact";
import type { Fixture, SeedReport } from "../fixtures/model";
import { FixtureError, validateFixture } from "../fixtures/validate";
import type { Runtime } from "../runtime";
import type { StateSummary } from "./model";

export interface ResetReport {
  /** The start-up fixture's load report, or null when the emulator started without one. */
  seed: SeedReport | null;
}

/** FixtureError problems → the 422 envelope's details. */
function fixtureError(e: FixtureError) {
  return errors.fixtureInvalid(e.problems.map((p) => ({ field: p.path, message: p.message })));
}

/**
 * Prepared once per database (preparing this DELETE compiles the cascade into every table below `accounts`),
 * in a bun:sqlite transaction of its own: no drizzle transaction object to build for one statement.
 */
const deleteAllOf = new WeakMap<Database, () => void>();

function deleteAll(client: Database): void {
  let run = deleteAllOf.get(client);
  if (!run) {
    const stmt = client.prepare("DELETE FROM accounts");
    run = client.transaction(() => void stmt.run());
    deleteAllOf.set(client, run);
  }
  run();
}

/** What lives outside the rows and bundle files: cleared by a reset and by a snapshot's restore alike. */
function clearTransientState(runtime: Runtime): void {
  const { control } = runtime;
  runtime.rateLimiter.clear();
  control.faults.clear();
  control.requestLog.clear();
  runtime.services.dashboardKeys.clear();
}

export function resetEmulator(runtime: Runtime): ResetReport {
  const { db, control } = runtime;
  control.cancelTimers();
  // One synchronous transaction: nothing is half-deleted if it fails.
  deleteAll(db.$client);
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

/** A seed body checked as `--seed` checks a file: a 422 with the fixture's own messages and paths. */
export function checkSeedBody(data: unknown): void {
  try {
    validateFixture(data, "seed body");
  } catch (e) {
    if (e instanceof FixtureError) throw fixtureError(e);
    throw e;
  }
}

/** Loads a fixture given as parsed JSON (an export's bundles from `bundleDir`): same checks as `--seed`, idempotent. */
export function seedEmulator(runtime: Runtime, data: unknown, bundleDir: BundleDir = null): SeedReport {
  try {
    const fixture: Fixture = validateFixture(data, "seed body");
    return runtime.seed(fixture, bundleDir);
  } catch (e) {
    if (e instanceof FixtureError) throw fixtureError(e);
    throw e;
  }
}

export function emulatorState(runtime: Runtime): StateSummary {
  const { db, control } = runtime;
  // Table and column names are literals here, never input.
  const count = (from: string) =>
    db.$client.prepare<{ n: number }, []>(`SELECT COUNT(*) AS n FROM ${from}`).get()?.n ?? 0;
  const sum = (column: string) =>
    db.$client.prepare<{ n: number }, []>(`SELECT COALESCE(SUM(${column}), 0) AS n FROM install_counters`).get()?.n ??
    0;
  return {
    counts: {
      accounts: count("accounts"),
      apiKeys: count("api_keys WHERE revoked_at IS NULL"),
      revokedApiKeys: count("api_keys WHERE revoked_at IS NOT NULL"),
      teamMembers: count("team_members"),
      extensions: count("extensions"),
      versions: count("versions"),
      secrets: count("secrets"),
      activeInstalls: sum("active"),
      installs: sum("installed"),
      accountOverrides: count("account_overrides"),
      extensionOverrides: count("extension_overrides"),
      limitRequests: count("limit_requests"),
      bundleFiles: runtime.blobs.list().length,
    },
    faults: control.faults.list().length,
    requestsLogged: control.requestLog.count,
    rateLimits: runtime.rateLimiter.isEnabled,
    autoApproveMs: runtime.config.autoApproveMs,
    clock: runtime.clock.state(),
  };
}
