/**
 * Migrations embedded in the bundle. drizzle's file-based `migrate()` reads `drizzle/` from disk at run
 * time, which does not exist inside a compiled binary, so each SQL file is imported as text here and fed to
 * the dialect's migrator in journal order. `test/db/migrations.test.ts` checks this list matches the journal.
 * After `npm run db:generate`, add the new file below.
 */
import { createHash } from "node:crypto";
import type { MigrationMeta } from "drizzle-orm/migrator";
import journal from "../../drizzle/meta/_journal.json" with { type: "json" };
import m0000 from "../../drizzle/0000_init.sql" with { type: "text" };
import m0001 from "../../drizzle/0001_install_counters.sql" with { type: "text" };
import m0002 from "../../drizzle/0002_install_rows_to_counters.sql" with { type: "text" };

export const embeddedMigrations: Record<string, string> = {
  "0000_init": m0000,
  "0001_install_counters": m0001,
  "0002_install_rows_to_counters": m0002,
};

export function migrationMetas(): MigrationMeta[] {
  return journal.entries.map((entry) => {
    const sqlText = embeddedMigrations[entry.tag];
    if (sqlText === undefined) throw new Error(`migration ${entry.tag} is in the journal but not embedded`);
    return {
      sql: sqlText.split("--> statement-breakpoint"),
      bps: entry.breakpoints,
      folderMillis: entry.when,
      hash: createHash("sha256").update(sqlText).digest("hex"),
    };
  });
}
