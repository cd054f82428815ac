/**
 * Migrations embedded in the bundle. drizzle's file-based `migrate()` reads `drizzle/` from disk at run
 * time, which does not exist inside a compiled binary, so each SQL file is imported as text here and applied
 * in journal order by `applyMigrations`: drizzle's own migrator step for step (its bookkeeping table, its rule
 * for what is pending, one transaction), with each statement handed to SQLite as it is: building each DDL
 * statement through drizzle's query builder would dominate an empty data directory's start.
 * `test/db/migrations.test.ts` checks this list matches the journal and that both runners leave the same
 * database.
 * After `npm run db:generate`, add the new file below.
 */

import type { Database } from "bun:sqlite";
import type { MigrationMeta } from "drizzle-orm/migrator";
import m0000 from "../../drizzle/0000_init.sql" with { type: "text" };
import m0001 from "../../drizzle/0001_install_counters.sql" with { type: "text" };
import m0002 from "../../drizzle/0002_install_rows_to_counters.sql" with { type: "text" };
import m0003 from "../../drizzle/0003_active_key_names.sql" with { type: "text" };
import m0004 from "../../drizzle/0004_active_key_names_by_account.sql" with { type: "text" };
import journal from "../../drizzle/meta/_journal.json" with { type: "json" };
import { sha256Hex } from "../base/crypto";

export const embeddedMigrations: Record<string, string> = {
  "0000_init": m0000,
  "0001_install_counters": m0001,
  "0002_install_rows_to_counters": m0002,
  "0003_active_key_names": m0003,
  "0004_active_key_names_by_account": m0004,
};

export function migrationMetas(): MigrationMeta[] {
  return journal.entries.map((entry) => {
    const sqlText = embeddedMigrations[entry.tag];
    if (sqlText === undefined) throw new Error(`migration ${entry.tag} is in the journal but not embedded`);
    return {
      sql: sqlText.split("--> statement-breakpoint"),
      bps: entry.breakpoints,
      folderMillis: entry.when,
      hash: sha256Hex(sqlText),
    };
  });
}

/** drizzle's bookkeeping table, as its SQLite migrator creates it. */
const MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS "__drizzle_migrations" (
				id SERIAL PRIMARY KEY,
				hash text NOT NULL,
				created_at numeric
			)`;

/**
 * Applies the migrations newer than the last one recorded, in one transaction, as drizzle's migrator does.
 * The transaction begins IMMEDIATE, before the read of the last applied migration: two processes opening the
 * same file then take turns instead of both reading, and one failing to upgrade its read to a write.
 */
export function applyMigrations(sqlite: Database, metas: MigrationMeta[] = migrationMetas()): void {
  sqlite
    .transaction(() => {
      sqlite.run(MIGRATIONS_TABLE);
      const last = sqlite
        .query<{ created_at: number | string | null }, []>(
          'SELECT id, hash, created_at FROM "__drizzle_migrations" ORDER BY created_at DESC LIMIT 1',
        )
        .get();
      const record = sqlite.prepare('INSERT INTO "__drizzle_migrations" ("hash", "created_at") VALUES(?, ?)');
      for (const migration of metas) {
        if (last && Number(last.created_at) >= migration.folderMillis) continue;
        for (const statement of migration.sql) sqlite.run(statement);
        record.run(migration.hash, migration.folderMillis);
      }
    })
    .immediate();
}
