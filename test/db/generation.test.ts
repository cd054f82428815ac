/**
 * The database generation behind the read caches (server/db/generation.ts) and the write helper that moves it
 * (`db.write`, server/db/database.ts), on a real WAL file and in memory: reads leave it alone, every write
 * transaction moves it once it has ended, a read inside a write transaction never matches, and a write
 * transaction begins IMMEDIATE, so a read at its start cannot lose the write lock to another connection.
 */
import { Database } from "bun:sqlite";
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { count } from "drizzle-orm";
import { type Db, openDatabase } from "../../server/db/database";
import { accounts } from "../../server/db/schema";

const EPOCH = "2026-01-01T00:00:00.000Z";
const insertAccount = (db: Db, id: string) => db.insert(accounts).values({ id, name: id, createdAt: EPOCH }).run();
const accountCount = (db: Db) => db.select({ n: count() }).from(accounts).get()!.n;

for (const mode of ["file", "memory"] as const) {
  describe(`database generation (${mode})`, () => {
    let dir: string;
    let db: Db;
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), "ext-generation-"));
      db = openDatabase(mode === "file" ? join(dir, "ext.sqlite") : ":memory:");
    });
    afterEach(() => {
      db.$client.close();
      rmSync(dir, { recursive: true, force: true });
    });

    test("stays put while only reads happen, moves once a write transaction has committed", () => {
      const g = db.generation.current();
      accountCount(db);
      expect(db.generation.current()).toBe(g);
      db.write((tx) => insertAccount(tx, "acc_1"));
      const after = db.generation.current();
      expect(after).not.toBe(g);
      expect(db.generation.current()).toBe(after);
      // A writer made once moves it the same way.
      const add = db.writer((id: string) => insertAccount(db, id));
      add("acc_2");
      expect(db.generation.current()).not.toBe(after);
    });

    test("a read inside a write transaction never matches, during it or after a rollback", () => {
      const before = db.generation.current();
      const seenInside: number[] = [];
      expect(() =>
        db.write((tx) => {
          insertAccount(tx, "acc_rolled_back");
          seenInside.push(db.generation.current(), db.generation.current());
          throw new Error("roll back");
        }),
      ).toThrow("roll back");
      expect(accountCount(db)).toBe(0);
      expect(seenInside[0]).not.toBe(seenInside[1]);
      const after = db.generation.current();
      expect(seenInside).not.toContain(after);
      expect(seenInside).not.toContain(before);
    });

    test("a nested write is part of the outer one: the generation moves when the outer one ends", () => {
      const before = db.generation.current();
      let insideAfterNested = before;
      db.write((tx) => {
        tx.write((inner) => insertAccount(inner, "acc_nested"));
        insideAfterNested = db.generation.current();
        insertAccount(tx, "acc_outer");
      });
      expect(insideAfterNested).toBeLessThan(0);
      expect(db.generation.current()).toBe(before + 1);
      expect(accountCount(db)).toBe(2);
    });
  });
}

describe("write transactions begin IMMEDIATE", () => {
  test("a write that reads first keeps the write lock: another connection's write waits, it does not win", () => {
    const dir = mkdtempSync(join(tmpdir(), "ext-immediate-"));
    const file = join(dir, "ext.sqlite");
    const db = openDatabase(file);
    const other = new Database(file);
    try {
      other.exec("PRAGMA busy_timeout = 0");
      let otherError: unknown = null;
      db.write((tx) => {
        // Read first: a deferred transaction would now hold only a read snapshot.
        accountCount(tx);
        try {
          other.run("INSERT INTO accounts (id, name, created_at) VALUES ('acc_other', 'other', ?)", [EPOCH]);
        } catch (e) {
          otherError = e;
        }
        // With a deferred begin this write would fail (SQLITE_BUSY_SNAPSHOT): the other connection committed.
        insertAccount(tx, "acc_ours");
      });
      expect(String((otherError as { code?: string } | null)?.code)).toMatch(/^SQLITE_BUSY/);
      expect(db.select({ id: accounts.id }).from(accounts).all()).toEqual([{ id: "acc_ours" }]);
    } finally {
      other.close();
      db.$client.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
