/**
 * The migrations embedded in the binary are exactly drizzle-kit's output: same list, same order, same SQL; and
 * the runner that applies them leaves what drizzle's own migrator would.
 */

import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { drizzle } from "drizzle-orm/bun-sqlite";
import { openDatabase } from "../../server/db/database";
import { applyMigrations, embeddedMigrations, migrationMetas } from "../../server/db/migrations";

const DRIZZLE = join(import.meta.dir, "../../drizzle");
const journal = JSON.parse(readFileSync(join(DRIZZLE, "meta/_journal.json"), "utf8")) as {
  entries: { tag: string; when: number }[];
};

describe("embedded migrations", () => {
  test("one embedded migration per journal entry, and one journal entry per .sql file", () => {
    const tags = journal.entries.map((e) => e.tag);
    expect(Object.keys(embeddedMigrations).sort()).toEqual([...tags].sort());
    const files = readdirSync(DRIZZLE)
      .filter((f) => f.endsWith(".sql"))
      .map((f) => f.replace(/\.sql$/, ""));
    expect(files.sort()).toEqual([...tags].sort());
  });

  test("each embedded text is the file's text, in journal order with its hash", () => {
    const metas = migrationMetas();
    expect(metas).toHaveLength(journal.entries.length);
    journal.entries.forEach((entry, i) => {
      const text = readFileSync(join(DRIZZLE, `${entry.tag}.sql`), "utf8");
      expect(embeddedMigrations[entry.tag]).toBe(text);
      expect(metas[i]!.folderMillis).toBe(entry.when);
      expect(metas[i]!.hash).toBe(createHash("sha256").update(text).digest("hex"));
    });
  });

  test("they build every table of the schema, and re-running them is a no-op", () => {
    const db = openDatabase(":memory:");
    const tables = db.$client
      .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
      .all()
      .map((r) => r.name);
    for (const t of [
      "accounts",
      "api_keys",
      "team_members",
      "account_overrides",
      "extensions",
      "extension_overrides",
      "versions",
      "secrets",
      "install_counters",
      "limit_requests",
    ]) {
      expect(tables).toContain(t);
    }
    const applied = () =>
      db.$client.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM __drizzle_migrations").get()!.n;
    expect(applied()).toBe(journal.entries.length);
    (db as any).dialect.migrate(migrationMetas(), (db as any).session, {});
    expect(applied()).toBe(journal.entries.length);
    expect(db.$client.query<{ foreign_keys: number }, []>("PRAGMA foreign_keys").get()!.foreign_keys).toBe(1);
    db.$client.close();
  });

  test("our runner leaves the database drizzle's migrator leaves, from empty and from a partly migrated one", () => {
    const picture = (sqlite: Database) => ({
      schema: sqlite.query("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name").all(),
      applied: sqlite.query('SELECT hash, created_at FROM "__drizzle_migrations" ORDER BY id').all(),
    });
    const byDrizzle = (sqlite: Database, metas = migrationMetas()) =>
      (drizzle({ client: sqlite }) as any).dialect.migrate(metas, (drizzle({ client: sqlite }) as any).session, {});
    for (const start of [0, 1]) {
      const ours = new Database(":memory:");
      const theirs = new Database(":memory:");
      // Both begin from the same partial state (none, or the first migration applied by drizzle).
      if (start > 0) for (const db of [ours, theirs]) byDrizzle(db, migrationMetas().slice(0, start));
      applyMigrations(ours);
      byDrizzle(theirs);
      expect(picture(ours)).toEqual(picture(theirs));
      expect(picture(ours).applied).toHaveLength(journal.entries.length);
      ours.close();
      theirs.close();
    }
  });
});
