/**
 * One writer per table: every INSERT of a table is in that table's writer — the one function the API's
 * services and the fixture/export loader both call (src/seed/loader.ts) — and each table has exactly one.
 * A version's status is set only by review's transitions (src/versions/review.ts). The check reads the source
 * of src/ and cli/ (drizzle's `.insert(table)` and raw `INSERT INTO`); it fails for an insert anywhere else,
 * for a table without its writer, and for a writer that inserts twice.
 */
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { getTableName } from "drizzle-orm";
import * as schema from "../../src/db/schema";
import { TABLES_PARENTS_FIRST } from "../../src/db/schema";

const ROOT = join(import.meta.dir, "../..");

/** Each table's writer. A new table gets its line here, and its one insert there. */
const WRITERS: Record<string, string> = {
  accounts: "src/accounts/writer.ts",
  api_keys: "src/accounts/key-writer.ts",
  team_members: "src/accounts/member-writer.ts",
  account_overrides: "src/limits/overrides.ts",
  extensions: "src/extensions/writer.ts",
  extension_overrides: "src/limits/overrides.ts",
  versions: "src/versions/writer.ts",
  secrets: "src/secrets/service.ts",
  install_counters: "src/installs/service.ts",
  limit_requests: "src/limit-requests/service.ts",
};

/**
 * Inserts that are no table's writer: the migration runner's own bookkeeping, and the snapshot store's copy of
 * every row as it was stored (one statement for all tables, naming none; its rows were written by the writers).
 */
const NOT_WRITERS: Record<string, RegExp> = {
  "src/db/migrations.ts": /INSERT INTO "__drizzle_migrations"/,
  "src/snapshots/store.ts": /INSERT INTO \$\{t\}/,
};

/** drizzle's table objects by the name the source uses for them (`apiKeys`), to their SQL name (`api_keys`). */
const sqlNameOf = new Map(
  Object.entries(schema)
    .filter(([, value]) => (TABLES_PARENTS_FIRST as unknown[]).includes(value))
    .map(([name, table]) => [name, getTableName(table as (typeof TABLES_PARENTS_FIRST)[number])]),
);

interface Insert {
  file: string;
  table: string;
}

/** Every insert in the given sources: `.insert(name)` (any receiver) and raw `INSERT INTO name`. */
function insertsIn(files: { path: string; source: string }[]): Insert[] {
  const found: Insert[] = [];
  for (const { path, source } of files) {
    for (const m of source.matchAll(/\.insert\(\s*([\w.]+)\s*\)/g)) {
      const name = m[1]!.split(".").at(-1)!;
      found.push({ file: path, table: sqlNameOf.get(name) ?? name });
    }
    for (const m of source.matchAll(/INSERT\s+(?:OR\s+\w+\s+)?INTO\s+(["`]?[$\w{}".]+)/gi)) {
      if (NOT_WRITERS[path]?.test(m[0])) continue;
      found.push({ file: path, table: m[1]!.replace(/["`]/g, "") });
    }
  }
  return found;
}

/** What is wrong with a set of inserts: an insert outside its table's writer, or a table not inserted exactly once. */
function problems(inserts: Insert[]): string[] {
  const out: string[] = [];
  for (const { file, table } of inserts) {
    const writer = WRITERS[table];
    if (writer === undefined) out.push(`${file}: inserts into "${table}", which has no writer`);
    else if (writer !== file) out.push(`${file}: inserts into "${table}" outside its writer ${writer}`);
  }
  for (const [table, writer] of Object.entries(WRITERS)) {
    const n = inserts.filter((i) => i.table === table).length;
    if (n !== 1) out.push(`${writer}: "${table}" is inserted ${n} times (its writer has exactly one insert)`);
  }
  return out;
}

function sources(dir: string): { path: string; source: string }[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(".ts"))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)))
    .map((path) => ({ path, source: readFileSync(join(ROOT, path), "utf8") }));
}

const tree = [...sources("src"), ...sources("cli")];

test("every table has a writer, and every table of the schema is listed", () => {
  expect(Object.keys(WRITERS).sort()).toEqual(TABLES_PARENTS_FIRST.map((t): string => getTableName(t)).sort());
});

test("each table is inserted exactly once, by its writer", () => {
  const inserts = insertsIn(tree);
  expect(inserts.length).toBeGreaterThanOrEqual(Object.keys(WRITERS).length);
  expect(problems(inserts)).toEqual([]);
});

test("a version's status is set only by review's transitions", () => {
  const updates = tree.filter((f) => /\.update\(\s*versions\s*\)|UPDATE\s+"?versions"?\s/i.test(f.source));
  expect(updates.map((f) => f.path)).toEqual(["src/versions/review.ts"]);
});

test("the check can fail: an insert outside its writer, a second insert, a raw insert", () => {
  const files = [
    { path: "src/accounts/key-writer.ts", source: "db.insert(apiKeys).values(row)" },
    { path: "src/seed/loader.ts", source: "tx.insert(apiKeys).values(row); tx.insert(versions)" },
    { path: "src/emulator/x.ts", source: 'db.$client.prepare("INSERT INTO secrets (a) VALUES (?)")' },
    { path: "src/emulator/y.ts", source: "tx.insert(schema.limitRequests).values(row)" },
  ];
  const found = problems(insertsIn(files));
  expect(found).toContain('src/seed/loader.ts: inserts into "api_keys" outside its writer src/accounts/key-writer.ts');
  expect(found).toContain(
    'src/accounts/key-writer.ts: "api_keys" is inserted 2 times (its writer has exactly one insert)',
  );
  expect(found).toContain('src/emulator/x.ts: inserts into "secrets" outside its writer src/secrets/service.ts');
  expect(found).toContain('src/seed/loader.ts: inserts into "versions" outside its writer src/versions/writer.ts');
  expect(found).toContain(
    'src/emulator/y.ts: inserts into "limit_requests" outside its writer src/limit-requests/service.ts',
  );
});
