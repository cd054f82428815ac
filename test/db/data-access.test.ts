/**
 * How the source reaches SQLite (the rule written at the top of server/db/database.ts): raw SQL on the
 * connection only where drizzle cannot go, transactions only through the helpers that begin writes IMMEDIATE
 * and move the read caches' generation, and no SQLite file mapped into memory or read behind SQLite's back.
 */
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

const ROOT = join(import.meta.dir, "../..");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(".ts"))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)));
}

const files = ["server", "tools", "common"].flatMap((dir) => sourceFiles(join(ROOT, dir)));
const offenders = (pattern: RegExp, allowed: string[]) =>
  files.filter((f) => !allowed.includes(f) && pattern.test(readFileSync(join(ROOT, f), "utf8")));

test("the tree is read", () => {
  expect(files).toContain("server/db/database.ts");
  expect(files.length).toBeGreaterThan(50);
});

test("raw SQL on the connection only in the database module and the migration runner", () => {
  // runtime.ts closes the connection; that is no SQL.
  const sqlOnClient = /\$client\s*\.\s*(prepare|query|run|exec|transaction)\b/;
  expect(offenders(sqlOnClient, ["server/db/database.ts", "server/db/migrations.ts"])).toEqual([]);
});

test("the SQLite driver itself only where raw SQL is allowed (a statement prepared on any handle, not only $client)", () => {
  const allowed = [
    "server/db/database.ts",
    "server/db/migrations.ts",
    "server/db/generation.ts",
    "server/data-dir/lock.ts",
    "server/resources/snapshots/store.ts",
  ];
  expect(offenders(/from\s+"bun:sqlite"/, allowed)).toEqual([]);
  expect(offenders(/\.prepare(<[^(]*>)?\(\s*["'`]/, allowed)).toEqual([]);
});

test("transactions only through db.write / db.writer / db.read", () => {
  expect(offenders(/\.transaction\s*\(/, ["server/db/database.ts", "server/db/migrations.ts"])).toEqual([]);
});

test("no SQLite file mapped into memory, and no server code that touches SQLite's -shm file", () => {
  expect(offenders(/\bmmap\b/, [])).toEqual([]);
  // The CLI's start-up check may test that the data directory's files can be written, before SQLite opens them.
  expect(offenders(/-shm\b/, ["tools/cli/lib/startup-errors.ts"])).toEqual([]);
});

test("only the audited hot writers promise to leave keys and accounts alone (credentialsUntouched)", () => {
  // Such a writer keeps authenticated keys remembered across its commit (server/db/database.ts): each use is a
  // transaction read to write no api_keys, accounts or team_members row, not even through a cascade, and is
  // exercised in test/db/credentials-generation.test.ts. A new one is added here on purpose, after the same reading.
  expect(offenders(/credentialsUntouched\s*:\s*true/, ["server/db/database.ts"]).sort()).toEqual([
    "server/resources/extensions/service.ts",
    "server/resources/secrets/service.ts",
  ]);
});
