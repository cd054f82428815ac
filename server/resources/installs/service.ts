/**
 * Install statistics, kept as counters per (extension, version): the API only ever shows aggregates, so a
 * read costs O(versions) and recording any count is one statement, whether an extension has ten installs or
 * a hundred million. The domain operations (install, uninstall, rollout) are for the control plane, which
 * mounts them over HTTP, for fixtures and for tests. `installCount` in the extension objects is the same sum
 * as `total`.
 */
import { and, asc, eq, sql } from "drizzle-orm";
import { MAX_INSTALLS_PER_CALL } from "../../../common/api-rules";
import type { Clock } from "../../base/clock";
import { type Db, param, type Tx } from "../../db/database";
import type { DbGeneration } from "../../db/generation";
import { createReadCache } from "../../db/read-cache";
import { extensions, installCounters, versions } from "../../db/schema";
import { errors } from "../../errors/catalog";
import type { ExtensionService } from "../extensions/service";
import type { LimitsService } from "../limits/service";
import { type InstallOptions, type InstallStats, MAX_INSTALLS_PER_EXTENSION, type RolloutOptions } from "./model";

type Reader = Pick<Db, "select">;
type VersionRow = typeof versions.$inferSelect;

/**
 * What an extension's counters keep whatever writes them (installs, a fixture's `installs`, an export's
 * counters), its one home: at most MAX_INSTALLS_PER_EXTENSION recorded in all, and never more active than
 * recorded (a rollout moves active installs between versions, so one version may have more active than it
 * recorded; the extension never does). `field` names what the refusal is about.
 */
export function checkInstallTotals(
  installed: number,
  active: number,
  field = { installed: "count", active: "active" },
) {
  if (installed > MAX_INSTALLS_PER_EXTENSION)
    throw errors.installTotalTooLarge(MAX_INSTALLS_PER_EXTENSION, field.installed);
  if (active > installed) throw errors.activeAboveInstalled(active, installed, field.active);
}

export function createInstallService(deps: {
  db: Db;
  clock: Clock;
  limits: LimitsService;
  extensions: ExtensionService;
  generation: DbGeneration;
}) {
  const { db, clock, limits, extensions: extensionService } = deps;
  const forAccountCache = createReadCache<InstallStats>(deps.generation);

  function extensionRow(extensionId: string, tx: Reader = db) {
    const row = tx.select().from(extensions).where(eq(extensions.id, extensionId)).get();
    if (!row) throw errors.extensionNotFound(extensionId);
    return row;
  }

  function versionOf(extensionId: string, versionId: string, tx: Reader): VersionRow {
    const row = tx
      .select()
      .from(versions)
      .where(and(eq(versions.id, versionId), eq(versions.extensionId, extensionId)))
      .get();
    if (!row) throw errors.versionNotFound(versionId);
    return row;
  }

  function checkedCount(count: number | undefined): number {
    const n = count ?? 1;
    if (!Number.isInteger(n) || n < 1 || n > MAX_INSTALLS_PER_CALL)
      throw errors.installCountInvalid(MAX_INSTALLS_PER_CALL);
    return n;
  }

  /**
   * What an install (or an update onto a version) requires: an approved version whose sounds still fit the
   * sound limit as it resolves now — the spec's install-time validation, since an override may have been
   * lowered after the upload was accepted.
   */
  function installableVersion(
    ext: typeof extensions.$inferSelect,
    versionId: string | null | undefined,
    tx: Reader,
  ): VersionRow {
    if (!versionId) throw errors.noCurrentVersion(ext.id);
    const version = versionOf(ext.id, versionId, tx);
    if (version.status !== "approved") throw errors.versionNotInstallable(versionId, version.status);
    const max = limits.resolve("max_sounds_per_extension", { accountId: ext.accountId, extensionId: ext.id }).value;
    if (version.soundCount > max) {
      throw errors.limitExceeded(
        "max_sounds_per_extension",
        max,
        version.soundCount,
        "sounds per extension",
        `Install-time re-check: version "${versionId}" bundles ${version.soundCount} sound${version.soundCount === 1 ? "" : "s"}, more than the sound limit as it resolves now; nothing was installed.`,
      );
    }
    return version;
  }

  /**
   * The extension's counter rows, the versions installed first first (the order uninstalls and rollouts take).
   * Versions first installed at the same instant (a fixture, a frozen clock) go in version order: their ids
   * are random past the millisecond.
   */
  function oldestFirst(extensionId: string, tx: Reader) {
    return tx
      .select({ versionId: installCounters.versionId, active: installCounters.active })
      .from(installCounters)
      .innerJoin(versions, eq(versions.id, installCounters.versionId))
      .where(eq(installCounters.extensionId, extensionId))
      .orderBy(asc(installCounters.firstInstalledAt), asc(versions.seq))
      .all();
  }

  // Prepared once: the statistics are read on every install route. bun:sqlite has one connection, so they
  // also see the writes of an open transaction.
  const countersStmt = db
    .select({
      versionId: installCounters.versionId,
      installed: installCounters.installed,
      active: installCounters.active,
    })
    .from(installCounters)
    .where(eq(installCounters.extensionId, sql.placeholder("id")))
    .orderBy(asc(installCounters.versionId))
    .prepare();
  const extensionExistsStmt = db
    .select({ id: extensions.id })
    .from(extensions)
    .where(eq(extensions.id, sql.placeholder("id")))
    .prepare();

  /** The aggregates of an extension known to exist. */
  function aggregates(extensionId: string): InstallStats {
    let total = 0;
    let active = 0;
    const byVersion: Record<string, number> = {};
    for (const r of countersStmt.all({ id: extensionId })) {
      total += r.installed;
      active += r.active;
      if (r.active > 0) byVersion[r.versionId] = r.active;
    }
    return { total, active, byVersion };
  }

  function stats(extensionId: string): InstallStats {
    if (!extensionExistsStmt.get({ id: extensionId })) throw errors.extensionNotFound(extensionId);
    return aggregates(extensionId);
  }

  // The one writer of install_counters: adds to a version's counters, creating its row (with the instant of
  // its first install) on its first install, its first rollout onto it, or a fixture's counters.
  const addStmt = db
    .insert(installCounters)
    .values({
      extensionId: sql.placeholder("extensionId"),
      versionId: sql.placeholder("versionId"),
      installed: sql.placeholder("installed"),
      active: sql.placeholder("active"),
      firstInstalledAt: sql.placeholder("firstInstalledAt"),
    })
    .onConflictDoUpdate({
      target: [installCounters.extensionId, installCounters.versionId],
      set: {
        installed: sql`${installCounters.installed} + excluded.installed`,
        active: sql`${installCounters.active} + excluded.active`,
      },
    })
    .prepare();
  const deleteStmt = db
    .delete(installCounters)
    .where(
      and(
        eq(installCounters.extensionId, sql.placeholder("extensionId")),
        eq(installCounters.versionId, sql.placeholder("versionId")),
      ),
    )
    .prepare();

  const replaceStmt = db
    .update(installCounters)
    .set({
      installed: param("installed"),
      active: param("active"),
      firstInstalledAt: sql`COALESCE(${sql.placeholder("firstInstalledAt")}, ${installCounters.firstInstalledAt})`,
    })
    .where(
      and(
        eq(installCounters.extensionId, sql.placeholder("extensionId")),
        eq(installCounters.versionId, sql.placeholder("versionId")),
      ),
    )
    .returning({ versionId: installCounters.versionId })
    .prepare();

  function addTo(
    extensionId: string,
    versionId: string,
    add: { installed: number; active: number },
    firstInstalledAt = clock.iso(),
  ) {
    addStmt.run({ extensionId, versionId, ...add, firstInstalledAt });
  }

  /**
   * Takes `count` active installs away: from `fromVersionId` when given, else spread over the versions whose
   * first install is oldest. Refuses (changing nothing) when fewer are active. Returns what it took per version.
   */
  function takeActive(
    tx: Tx,
    extensionId: string,
    count: number | undefined,
    fromVersionId: string | undefined,
    exceptVersionId?: string,
  ) {
    const action = exceptVersionId === undefined ? "uninstall" : "move";
    const rows = oldestFirst(extensionId, tx).filter(
      (r) =>
        r.active > 0 &&
        r.versionId !== exceptVersionId &&
        (fromVersionId === undefined || r.versionId === fromVersionId),
    );
    const available = rows.reduce((n, r) => n + r.active, 0);
    const wanted = count ?? available;
    if (wanted < 1 || available < wanted) throw errors.notEnoughActiveInstalls(Math.max(wanted, 1), available, action);
    let left = wanted;
    for (const r of rows) {
      if (left === 0) break;
      const n = Math.min(left, r.active);
      tx.update(installCounters)
        .set({ active: sql`${installCounters.active} - ${n}` })
        .where(and(eq(installCounters.extensionId, extensionId), eq(installCounters.versionId, r.versionId)))
        .run();
      left -= n;
    }
    return wanted;
  }

  return {
    stats: (extensionId: string): InstallStats => stats(extensionId),

    /** The developer route: the extension must belong to the caller (404 otherwise, like every read). */
    statsForAccount(accountId: string, extensionId: string): InstallStats {
      return forAccountCache.get(`${accountId}\0${extensionId}`, () => {
        extensionService.findOwned(accountId, extensionId);
        return aggregates(extensionId);
      });
    },

    /** Records `count` installs of an approved version (default: the current one), after the re-check. */
    recordInstall(extensionId: string, opts: InstallOptions = {}): InstallStats {
      const count = checkedCount(opts.count);
      return db.write((tx) => {
        const ext = extensionRow(extensionId, tx);
        const version = installableVersion(ext, opts.versionId ?? ext.currentVersionId, tx);
        const before = aggregates(extensionId);
        checkInstallTotals(before.total + count, before.active + count);
        addTo(extensionId, version.id, { installed: count, active: count });
        return aggregates(extensionId);
      });
    },

    /** Uninstalls `count` active installs: of `versionId` when given, else of the versions installed first. */
    recordUninstall(extensionId: string, opts: InstallOptions = {}): InstallStats {
      const count = checkedCount(opts.count);
      return db.write((tx) => {
        extensionRow(extensionId, tx);
        if (opts.versionId !== undefined) versionOf(extensionId, opts.versionId, tx);
        takeActive(tx, extensionId, count, opts.versionId);
        return aggregates(extensionId);
      });
    },

    /**
     * An update rollout: moves `count` active installs (default: all of the source) from `fromVersionId` (or
     * from every other version, the oldest first) onto `toVersionId` (default: the current version). The
     * target is checked like an install; `total` does not change, since an update is not a new install.
     */
    recordRollout(extensionId: string, opts: RolloutOptions = {}): InstallStats {
      const count = opts.count === undefined ? undefined : checkedCount(opts.count);
      return db.write((tx) => {
        const ext = extensionRow(extensionId, tx);
        const target = installableVersion(ext, opts.toVersionId ?? ext.currentVersionId, tx);
        if (opts.fromVersionId !== undefined) {
          versionOf(extensionId, opts.fromVersionId, tx);
          if (opts.fromVersionId === target.id) throw errors.rolloutSameVersion(target.id);
        }
        const moved = takeActive(tx, extensionId, count, opts.fromVersionId, target.id);
        addTo(extensionId, target.id, { installed: 0, active: moved });
        return aggregates(extensionId);
      });
    },

    /**
     * Sets a version's counters as a fixture or an export gives them (`installed` ever, `active` now), replacing
     * what was there; the first install's instant is the one given, else the one the row has, else now. Runs
     * inside the loader's transaction, which then holds the extension's totals to checkInstallTotals.
     */
    setCounters(
      extensionId: string,
      versionId: string,
      counts: { installed: number; active: number },
      firstInstalledAt?: string,
    ) {
      const row = { extensionId, versionId, ...counts, firstInstalledAt: firstInstalledAt ?? null };
      if (!replaceStmt.get(row)) addTo(extensionId, versionId, counts, firstInstalledAt);
    },

    /** Removes a version's counters (a fixture's `installs` that no longer lists it). */
    removeCounters(extensionId: string, versionId: string) {
      deleteStmt.run({ extensionId, versionId });
    },

    /** The versions of the extension that have counters. */
    versionsWithCounters: (extensionId: string) => countersStmt.all({ id: extensionId }).map((r) => r.versionId),

    /** The extension's totals as the API counts them (the statistics' `total` and `active`). */
    totals: (extensionId: string) => aggregates(extensionId),
  };
}

export type InstallService = ReturnType<typeof createInstallService>;
