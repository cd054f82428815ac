/**
 * Install records and their aggregates. The developer API only reads aggregates; the domain operations
 * `recordInstall` / `recordUninstall` are for the control plane (which mounts them over HTTP) and tests.
 * One row per install keeps `total`, `active` and `byVersion` consistent by construction, and `installCount`
 * in the extension objects counts the same rows (= total).
 */
import { and, asc, eq, inArray, isNull, sql } from "drizzle-orm";
import type { Clock } from "../clock";
import type { Db } from "../db/database";
import { extensions, installs, versions } from "../db/schema";
import { errors } from "../errors/catalog";
import type { ExtensionService } from "../extensions/service";
import { newId } from "../ids";
import type { LimitsService } from "../limits/service";
import { MAX_INSTALLS_PER_CALL, type InstallOptions, type InstallStats } from "./model";

/** Rows per INSERT statement: 5 bound columns each stays far below SQLite's variable limit. */
const INSERT_CHUNK = 500;

export function createInstallService(deps: { db: Db; clock: Clock; limits: LimitsService; extensions: ExtensionService }) {
  const { db, clock, limits, extensions: extensionService } = deps;
  type Reader = Pick<Db, "select">;

  function extensionRow(extensionId: string, tx: Reader = db) {
    const row = tx.select().from(extensions).where(eq(extensions.id, extensionId)).get();
    if (!row) throw errors.extensionNotFound(extensionId);
    return row;
  }

  function versionOf(extensionId: string, versionId: string, tx: Reader) {
    const row = tx.select().from(versions).where(and(eq(versions.id, versionId), eq(versions.extensionId, extensionId))).get();
    if (!row) throw errors.versionNotFound(versionId);
    return row;
  }

  function checkedCount(count: number | undefined): number {
    const n = count ?? 1;
    if (!Number.isInteger(n) || n < 1 || n > MAX_INSTALLS_PER_CALL) throw errors.installCountInvalid(MAX_INSTALLS_PER_CALL);
    return n;
  }

  function stats(extensionId: string, tx: Reader = db): InstallStats {
    extensionRow(extensionId, tx);
    const totals = tx
      .select({ total: sql<number>`COUNT(*)`, active: sql<number>`COUNT(*) FILTER (WHERE ${installs.uninstalledAt} IS NULL)` })
      .from(installs)
      .where(eq(installs.extensionId, extensionId))
      .get();
    const perVersion = tx
      .select({ versionId: installs.versionId, n: sql<number>`COUNT(*)` })
      .from(installs)
      .where(and(eq(installs.extensionId, extensionId), isNull(installs.uninstalledAt)))
      .groupBy(installs.versionId)
      .orderBy(asc(installs.versionId))
      .all();
    const byVersion: Record<string, number> = {};
    for (const r of perVersion) byVersion[r.versionId] = Number(r.n);
    return { total: Number(totals?.total ?? 0), active: Number(totals?.active ?? 0), byVersion };
  }

  return {
    stats: (extensionId: string): InstallStats => stats(extensionId),

    /** The developer route: the extension must belong to the caller (404 otherwise, like every read). */
    statsForAccount(accountId: string, extensionId: string): InstallStats {
      extensionService.findOwned(accountId, extensionId);
      return stats(extensionId);
    },

    /**
     * Records `count` installs of an approved version (default: the current one). This is the spec's
     * install-time validation: the version's sound count is checked again against the sound limit as it
     * resolves now, since an override may have been lowered after the upload was accepted.
     */
    recordInstall(extensionId: string, opts: InstallOptions = {}): InstallStats {
      const count = checkedCount(opts.count);
      return db.transaction((tx) => {
        const ext = extensionRow(extensionId, tx);
        const versionId = opts.versionId ?? ext.currentVersionId;
        if (!versionId) throw errors.noCurrentVersion(extensionId);
        const version = versionOf(extensionId, versionId, tx);
        if (version.status !== "approved") throw errors.versionNotInstallable(versionId, version.status);
        const max = limits.resolve("max_sounds_per_extension", { accountId: ext.accountId, extensionId }).value;
        if (version.soundCount > max) {
          throw errors.limitExceeded(
            "max_sounds_per_extension",
            max,
            version.soundCount,
            "sounds per extension",
            `Install-time re-check: version "${versionId}" bundles ${version.soundCount} sounds, more than the sound limit as it resolves now; nothing was installed.`,
          );
        }
        const now = clock.iso();
        const nowMs = clock.nowMs();
        for (let done = 0; done < count; done += INSERT_CHUNK) {
          const rows = Array.from({ length: Math.min(INSERT_CHUNK, count - done) }, () => ({
            id: newId("ins", nowMs),
            extensionId,
            versionId,
            installedAt: now,
            uninstalledAt: null,
          }));
          tx.insert(installs).values(rows).run();
        }
        return stats(extensionId, tx);
      });
    },

    /** Marks `count` active installs uninstalled, oldest first (of `versionId` when given, else of any version). */
    recordUninstall(extensionId: string, opts: InstallOptions = {}): InstallStats {
      const count = checkedCount(opts.count);
      return db.transaction((tx) => {
        extensionRow(extensionId, tx);
        if (opts.versionId !== undefined) versionOf(extensionId, opts.versionId, tx);
        const active = and(
          eq(installs.extensionId, extensionId),
          isNull(installs.uninstalledAt),
          opts.versionId !== undefined ? eq(installs.versionId, opts.versionId) : undefined,
        );
        const ids = tx.select({ id: installs.id }).from(installs).where(active).orderBy(asc(installs.installedAt), asc(installs.id)).limit(count).all();
        if (ids.length < count) throw errors.notEnoughActiveInstalls(count, ids.length);
        const now = clock.iso();
        for (let i = 0; i < ids.length; i += INSERT_CHUNK) {
          tx.update(installs)
            .set({ uninstalledAt: now })
            .where(inArray(installs.id, ids.slice(i, i + INSERT_CHUNK).map((r) => r.id)))
            .run();
        }
        return stats(extensionId, tx);
      });
    },
  };
}

export type InstallService = ReturnType<typeof createInstallService>;
