/**
 * The database generation behind the list and key caches (src/db/generation.ts), on a real WAL file and in
 * memory: it moves on every commit, this connection's or another process's, stays put when nothing was
 * written, and a read inside a write transaction can never be matched, during it or after a rollback. Reading
 * the WAL-index header must never cost SQLite its lock on the -shm file.
 */

import { Database } from "bun:sqlite";
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EmulatorClock } from "../../src/clock";
import { parseServerConfig } from "../../src/config";
import { type Db, openDatabase } from "../../src/db/database";
import { createDbGeneration, type DbGeneration, openWalIndexHeader } from "../../src/db/generation";
import { createLogger } from "../../src/logger";
import { createRuntime } from "../../src/runtime";

const insertAccount = (sqlite: Database, id: string) =>
  sqlite.run("INSERT INTO accounts (id, name, created_at) VALUES (?, ?, ?)", [id, id, "2026-01-01T00:00:00.000Z"]);

for (const mode of ["file", "memory"] as const) {
  describe(`database generation (${mode})`, () => {
    let dir: string;
    let db: Db;
    let generation: DbGeneration;
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), "ext-generation-"));
      const file = mode === "file" ? join(dir, "ext.sqlite") : ":memory:";
      // As the runtime does it: the header first, then the database (src/db/generation.ts says why).
      const header = openWalIndexHeader(file);
      db = openDatabase(file);
      generation = createDbGeneration(db, header);
    });
    afterEach(() => {
      db.$client.close();
      generation.close();
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

/** The POSIX locks this process holds on `file` (Linux's /proc/locks), or null where there is no such table. */
function locksHeldOn(file: string): string[] | null {
  if (!existsSync("/proc/locks")) return null;
  const inode = statSync(file).ino;
  return readFileSync("/proc/locks", "utf8")
    .split("\n")
    .filter((line) => {
      const f = line.trim().split(/\s+/);
      // "1: POSIX  ADVISORY  READ 1234 fd:01:5678 128 128"
      return f[1] === "POSIX" && Number(f[4]) === process.pid && Number(f[5]?.split(":")[2]) === inode;
    });
}

describe("the WAL-index header and SQLite's locks", () => {
  test("a runtime on a data directory keeps SQLite's lock on the -shm file while it serves (another process would rebuild the file otherwise)", () => {
    const dataDir = mkdtempSync(join(tmpdir(), "ext-generation-locks-"));
    const runtime = createRuntime(parseServerConfig({ dataDir, logLevel: "silent" }, {}), {
      logger: createLogger("silent"),
      clock: new EmulatorClock(),
    });
    try {
      runtime.services.generation.current();
      const locks = locksHeldOn(join(dataDir, "ext.sqlite-shm"));
      if (locks === null) return; // no /proc/locks on this system
      expect(locks.length).toBeGreaterThan(0);
      // A second runtime's worth of reads and writes later, still held.
      runtime.db.$client.run(
        "INSERT INTO accounts (id, name, created_at) VALUES ('acc_lock', 'Lock', '2026-01-01T00:00:00.000Z')",
      );
      runtime.services.generation.current();
      expect(locksHeldOn(join(dataDir, "ext.sqlite-shm"))!.length).toBeGreaterThan(0);
    } finally {
      runtime.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
