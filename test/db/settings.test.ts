/**
 * The database as the runtime opens it on a real file (a data directory, not memory mode): foreign keys on,
 * WAL journal, a 5 s busy timeout (server/db/database.ts) and synchronous NORMAL, a new database included once
 * it is made. And the committed migrations in drizzle/ are what drizzle-kit would generate from
 * server/db/schema.ts today: a schema edited without `npm run db:generate` fails here.
 */

import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { EmulatorClock } from "../../server/base/clock";
import { parseServerConfig } from "../../server/base/config";
import { createLogger } from "../../server/base/logger";
import { openDatabase } from "../../server/db/database";
import { createRuntime, type Runtime } from "../../server/runtime/runtime";
import { cleanEnv } from "../helpers/clean-env";

const ROOT = resolve(import.meta.dir, "../..");

describe("database settings on a real file", () => {
  let dataDir: string;
  let runtime: Runtime;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), "ext-db-settings-"));
    runtime = createRuntime(parseServerConfig({ dataDir, logLevel: "silent" }, {}), {
      logger: createLogger("silent"),
      clock: new EmulatorClock(),
    });
  });
  afterAll(() => {
    runtime?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const pragma = (name: string) =>
    runtime.db.$client.query<Record<string, number | string>, []>(`PRAGMA ${name}`).get()!;

  test("the runtime's connection is on ext.sqlite in the data directory", () => {
    const main = runtime.db.$client
      .query<{ name: string; file: string }, []>("PRAGMA database_list")
      .all()
      .find((d) => d.name === "main")!;
    expect(resolve(main.file)).toBe(resolve(join(dataDir, "ext.sqlite")));
  });

  test("foreign_keys = 1, journal_mode = wal, busy_timeout = 5000 ms, synchronous = NORMAL (1)", () => {
    expect(pragma("foreign_keys")).toEqual({ foreign_keys: 1 });
    expect(pragma("journal_mode")).toEqual({ journal_mode: "wal" });
    // bun:sqlite reports this pragma's single column as "timeout".
    expect(Object.values(pragma("busy_timeout"))).toEqual([5000]);
    expect(pragma("synchronous")).toEqual({ synchronous: 1 });
  });

  test("foreign keys are enforced: a row pointing to no extension is refused", () => {
    const orphan = () =>
      runtime.db.$client
        .prepare(
          "INSERT INTO secrets (extension_id, name, ciphertext, iv, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
        )
        .run("ext_nowhere", "X", new Uint8Array([1]), new Uint8Array([1]), "t", "t");
    expect(orphan).toThrow(/FOREIGN KEY/);
  });

  test("WAL is a property of the file: another connection sees it", () => {
    const other = new Database(join(dataDir, "ext.sqlite"), { readonly: true });
    try {
      expect(other.query<{ journal_mode: string }, []>("PRAGMA journal_mode").get()).toEqual({ journal_mode: "wal" });
    } finally {
      other.close();
    }
  });
});

test("synchronous is NORMAL for a new database (made without flushes) and for one opened again", () => {
  const dir = mkdtempSync(join(tmpdir(), "ext-db-new-"));
  try {
    const file = join(dir, "ext.sqlite");
    for (const round of ["new", "again"]) {
      const db = openDatabase(file);
      const sync = db.$client.query<{ synchronous: number }, []>("PRAGMA synchronous").get();
      const tables = db.$client
        .query<{ n: number }, []>("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'")
        .get();
      db.$client.close();
      expect([round, sync]).toEqual([round, { synchronous: 1 }]);
      expect(tables!.n).toBeGreaterThan(10);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

describe("committed migrations match server/db/schema.ts", () => {
  test("drizzle-kit generate, run on a copy of drizzle/, has nothing to add", () => {
    const out = mkdtempSync(join(tmpdir(), "ext-drizzle-check-"));
    try {
      cpSync(join(ROOT, "drizzle"), out, { recursive: true });
      // drizzle-kit prefixes --out with "./": give it a path relative to the project root.
      const proc = Bun.spawnSync(
        [
          join(ROOT, "node_modules/.bin/drizzle-kit"),
          "generate",
          "--dialect",
          "sqlite",
          "--schema",
          "./server/db/schema.ts",
          "--out",
          relative(ROOT, out),
        ],
        { cwd: ROOT, env: cleanEnv(), stdin: "ignore", stdout: "pipe", stderr: "pipe", timeout: 20_000 },
      );
      const output = `${proc.stdout.toString()}${proc.stderr.toString()}`;
      expect(proc.exitCode, output).toBe(0);
      expect(output).toContain("No schema changes");
      // And it wrote nothing: same files, same journal.
      const list = (dir: string) =>
        [...readdirSync(dir), ...readdirSync(join(dir, "meta")).map((f) => `meta/${f}`)].sort();
      expect(list(out)).toEqual(list(join(ROOT, "drizzle")));
      expect(readFileSync(join(out, "meta/_journal.json"), "utf8")).toBe(
        readFileSync(join(ROOT, "drizzle/meta/_journal.json"), "utf8"),
      );
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
