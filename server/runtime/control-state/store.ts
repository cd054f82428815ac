/**
 * The control plane's own reads and writes of the database as a whole: the row counts of the state summary,
 * and the reset's delete. Every table hangs off `accounts` with ON DELETE CASCADE, so one DELETE empties them all.
 */
import { count, isNotNull, isNull, sql } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Db } from "../../db/database";
import {
  accountOverrides,
  accounts,
  apiKeys,
  extensionOverrides,
  extensions,
  installCounters,
  limitRequests,
  secrets,
  teamMembers,
  versions,
} from "../../db/schema";
import type { StateSummary } from "./model";

export type RowCounts = Omit<StateSummary["counts"], "bundleFiles">;

export function createEmulatorStore(db: Db) {
  // Prepared once: preparing this DELETE compiles the cascade into every table below `accounts`.
  const deleteAllStmt = db.delete(accounts).prepare();
  const deleteAllTx = db.writer(() => deleteAllStmt.run());

  const rows = (table: SQLiteTable, where?: ReturnType<typeof isNull>) =>
    db.select({ n: count() }).from(table).where(where).get()?.n ?? 0;
  const installTotals = () =>
    db
      .select({
        active: sql<number>`COALESCE(SUM(${installCounters.active}), 0)`,
        installed: sql<number>`COALESCE(SUM(${installCounters.installed}), 0)`,
      })
      .from(installCounters)
      .get() ?? { active: 0, installed: 0 };

  return {
    /** Every row of every table, in one transaction: nothing is half-deleted if it fails. */
    deleteAll(): void {
      deleteAllTx();
    },

    rowCounts(): RowCounts {
      const totals = installTotals();
      return {
        accounts: rows(accounts),
        apiKeys: rows(apiKeys, isNull(apiKeys.revokedAt)),
        revokedApiKeys: rows(apiKeys, isNotNull(apiKeys.revokedAt)),
        teamMembers: rows(teamMembers),
        extensions: rows(extensions),
        versions: rows(versions),
        secrets: rows(secrets),
        activeInstalls: Number(totals.active),
        installs: Number(totals.installed),
        accountOverrides: rows(accountOverrides),
        extensionOverrides: rows(extensionOverrides),
        limitRequests: rows(limitRequests),
      };
    },
  };
}
