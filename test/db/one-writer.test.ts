/**
 * One writer per table: every INSERT of a table is in that table's writer — the one function the API's
 * services and the fixture/export loader both call (server/seed/loader.ts) — and each table has exactly one.
 * A version's status is set only by review's transitions (server/resources/versions/review.ts). The check reads the source
 * of server/, tools/ and common/ (drizzle's `.insert(table)` and raw `INSERT INTO`); it fails for an insert anywhere else,
 * for a table without its writer, and for a writer that inserts twice.
 */
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { getTableName } from "drizzle-orm";
import * as schema from "../../server/db/schema";
import { TABLES_PARENTS_FIRST } from "../../server/db/schema";

const ROOT = join(import.meta.dir, "../..");

/** Each table's writer. A new table gets its line here, and its one insert there. */
const WRITERS: Record<string, string> = {
  accounts: "server/resources/accounts/writer.ts",
  api_keys: "server/resources/accounts/key-writer.ts",
  team_members: "server/resources/accounts/member-writer.ts",
  account_overrides: "server/resources/limits/overrides.ts",
  extensions: "server/resources/extensions/writer.ts",
  extension_overrides: "server/resources/limits/overrides.ts",
  versions: "server/resources/versions/writer.ts",
  secrets: "server/resources/secrets/service.ts",
  install_counters: "server/resources/installs/service.ts",
  limit_requests: "server/resources/limit-requests/service.ts",
};

/**
 * Inserts that are no table's writer: the migration runner's own bookkeeping, and the snapshot store's copy of
 * every row as it was stored (one statement for all tables, naming none; its rows were written by the writers).
 */
const NOT_WRITERS: Record<string, RegExp> = {
  "server/db/migrations.ts": /INSERT INTO "__drizzle_migrations"/,
  "server/resources/snapshots/store.ts": /INSERT INTO \$\{t\}/,
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

const tree = [...sources("server"), ...sources("tools"), ...sources("common")];

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
  expect(updates.map((f) => f.path)).toEqual(["server/resources/versions/review.ts"]);
});

test("the check can fail: an insert outside its writer, a second insert, a raw insert", () => {
  const files = [
    { path: "server/resources/accounts/key-writer.ts", source: "db.insert(apiKeys).values(row)" },
    { path: "server/seed/loader.ts", source: "tx.insert(apiKeys).values(row); tx.insert(versions)" },
    { path: "server/control-plane/x.ts", source: 'db.$client.prepare("INSERT INTO secrets (a) VALUES (?)")' },
    { path: "server/control-plane/y.ts", source: "tx.insert(schema.limitRequests).values(row)" },
  ];
  const found = problems(insertsIn(files));
  expect(found).toContain(
    'server/seed/loader.ts: inserts into "api_keys" outside its writer server/resources/accounts/key-writer.ts',
  );
  expect(found).toContain(
    'server/resources/accounts/key-writer.ts: "api_keys" is inserted 2 times (its writer has exactly one insert)',
  );
  expect(found).toContain(
    'server/control-plane/x.ts: inserts into "secrets" outside its writer server/resources/secrets/service.ts',
  );
  expect(found).toContain(
    'server/seed/loader.ts: inserts into "versions" outside its writer server/resources/versions/writer.ts',
  );
  expect(found).toContain(
    'server/control-plane/y.ts: inserts into "limit_requests" outside its writer server/resources/limit-requests/service.ts',
  );
});
