/**
 * The database generation behind the list and key caches (src/db/generation.ts), on a real WAL file and in
 * memory: it moves on every commit, this connection's or another process's, stays put when nothing was
 * written, and a read inside a write transaction can never be matched, during it or after a rollback.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase, type Db } from "../../src/db/database";
import { createDbGeneration, type DbGeneration } from "../../src/db/generation";

const insertAccount = (sqlite: Database, id: string) =>
  sqlite.run("INSERT INTO accounts (id, name, created_at) VALUES (?, ?, ?)", [id, id, "2026-01-01T00:00:00.000Z"]);

for (const mode of ["file", "memory"] as const) {
  describe(`database generation (${mode})`, () => {
    let dir: string;
    let db: Db;
    let generation: DbGeneration;
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), "ext-generation-"));
      db = openDatabase(mode === "file" ? join(dir, "ext.sqlite") : ":memory:");
      generation = createDbGeneration(db);
    });
    afterEach(() => {
      generation.close();
      db.$client.close();
      rmSync(dir, { recursive: true, force: true });
    });

    test("stays put while nothing is written, moves on this connection's commit", () => {
      const g = generation.current();
      expect(generation.current()).toBe(g);
      db.$client.prepare("SELECT COUNT(*) FROM accounts").get();
      expect(generation.current()).toBe(g);
      insertAccount(db.$client, "acc_1");
      const after = generation.current();
      expect(after).not.toBe(g);
      expect(generation.current()).toBe(after);
    });

    test("a read inside a write transaction never matches, and nothing it saw is matched after a rollback", () => {
      const before = generation.current();
      const seenInside: number[] = [];
      expect(() =>
        db.$client.transaction(() => {
          insertAccount(db.$client, "acc_rolled_back");
          seenInside.push(generation.current(), generation.current());
          throw new Error("roll back");
        })(),
      ).toThrow("roll back");
      expect(seenInside[0]).not.toBe(seenInside[1]);
      const after = generation.current();
      expect(seenInside).not.toContain(after);
      expect(seenInside).not.toContain(before);
    });

    if (mode === "file") {
      test("moves on another connection's commit (another process, as ext seed --data-dir)", () => {
        const g = generation.current();
        const other = new Database(join(dir, "ext.sqlite"));
        try {
          other.exec("PRAGMA busy_timeout = 5000;");
          insertAccount(other, "acc_other");
        } finally {
          other.close();
        }
        expect(generation.current()).not.toBe(g);
      });
    }
  });
}
