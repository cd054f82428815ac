/**
 * What a fixture's load asks SQLite finds its rows through an index, never by reading a table through, nor every
 * key of one name: the loader runs each statement once per row of the fixture, so one that reads through what
 * grows with the fixture makes a large load quadratic. It happened: with the active-key index led by the name
 * alone, the lookup of a key by its account and name read every key of that name, and 20,000 accounts with a key
 * named "ci" each took 24 s to load instead of 1.2 s (bench/results/latest.md, "a 20,000-account fixture").
 *
 * Every statement SQLite received while two such fixtures load (one into a new database, one over it, which finds
 * what exists) is recorded, then explained. What a plan cannot show is left out: a statement that reads through an
 * index the rows of one name is a SEARCH however many rows it reads (how many lookups a new extension's slug takes:
 * test/extensions/slug-search.test.ts).
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, expect, spyOn, test } from "bun:test";
import type { Runtime } from "../../server/runtime/runtime";
import type { Fixture } from "../../server/seed/model";
import { memoryRuntime } from "../helpers/in-process-app";

/** A keyed hash as an export holds it, one per account. */
const keyHash = (i: number) => `hmac:${"a".repeat(60)}${String(i).padStart(4, "0")}`;

/**
 * Accounts alike but for their ids, with every kind of row a fixture holds: a key of the same name in each, a key
 * of an export (its id and keyed hash, revoked), a member, an extension with versions, installs and a secret, and
 * a limit request.
 */
const fixture = (accounts: number): Fixture => ({
  accounts: Array.from({ length: accounts }, (_, i) => ({
    id: `acc_plan_${i}`,
    name: `Developer ${i}`,
    apiKeys: [
      { name: "ci", key: `ext_plan_${String(i).padStart(4, "0")}_abcdefghijklmnopqrstuvwxyz`, scopes: ["*"] },
      {
        id: `key_plan_${i}`,
        name: "old",
        keyHash: keyHash(i),
        scopes: ["extensions:read"],
        createdAt: "2026-01-01T00:00:00.000Z",
        revokedAt: "2026-02-01T00:00:00.000Z",
      },
    ],
    overrides: { max_api_keys: 5 },
    teamMembers: [{ email: `dev${i}@example.com`, role: "developer" }],
    extensions: [
      {
        id: `ext_plan_${i}`,
        name: `Sound Board ${i}`,
        status: "approved",
        overrides: { max_sounds_per_extension: 80 },
        versions: [{ version: "1.0.0" }, { version: "1.1.0", status: "pending" }],
        installs: { byVersion: { "1.0.0": 10 }, active: 5 },
        secrets: [{ name: "TOKEN", value: `secret-${i}` }],
      },
    ],
    limitRequests: [
      {
        id: `req_plan_${i}`,
        scope: "account",
        limits: { max_api_keys: 6 },
        reason: "More keys for the plan test's runners, please.",
        status: "pending",
        createdAt: "2026-03-01T00:00:00.000Z",
      },
    ],
  })),
});

const sqlText = new Set<string>();
let runtime: Runtime;

beforeAll(() => {
  const spies = (["prepare", "query", "run"] as const).map((method) => spyOn(Database.prototype, method));
  try {
    runtime = memoryRuntime({}, { seedFixture: fixture(3) });
    // Loaded again over itself: every "does it exist" lookup now finds its row.
    runtime.seed(fixture(3));
    for (const spy of spies) for (const call of spy.mock.calls) sqlText.add(String(call[0]));
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
});
afterAll(() => runtime?.close());

/** SQLite's plan for `sql`, one line per step ("SEARCH api_keys USING INDEX …", "SCAN versions", …). */
const planOf = (sql: string): string[] =>
  runtime.db.$client
    .query<{ detail: string }, never[]>(`EXPLAIN QUERY PLAN ${sql}`)
    .all()
    .map((row) => row.detail);

/** The statements of a load that read or change rows (not the migrations' DDL nor the PRAGMAs). */
const loadStatements = () => [...sqlText].filter((sql) => /^\s*(select|insert|update|delete)\b/i.test(sql));

/** The schema's tables (drizzle's own bookkeeping aside): each one a fixture's rows may grow. */
const tables = () =>
  runtime.db.$client
    .query<{ name: string }, never[]>(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> '__drizzle_migrations'",
    )
    .all()
    .map((row) => row.name);

test("the load ran statements on every table a fixture fills, among them the key's lookup by name", () => {
  const statements = loadStatements();
  const untouched = tables().filter((table) => !statements.some((sql) => sql.includes(`"${table}"`)));
  expect(untouched).toEqual([]);
  expect(statements.some((sql) => /from "api_keys"/i.test(sql) && /"name" = \?/.test(sql))).toBe(true);
});

test("no statement of a load reads a table through", () => {
  const names = new Set(tables());
  const scans = loadStatements().flatMap((sql) =>
    planOf(sql)
      // A SCAN of a table, not of a subquery or of the rows a statement is inserting.
      .filter((step) => names.has(/^SCAN (\S+)/.exec(step)?.[1] ?? ""))
      .map((step) => `${step}  ←  ${sql}`),
  );
  expect(scans).toEqual([]);
});

test("a key is found by its account and name through an index holding both", () => {
  const lookups = loadStatements().filter(
    (sql) => /from "api_keys"/i.test(sql) && /"name" = \?/.test(sql) && /"account_id" = \?/.test(sql),
  );
  expect(lookups.length).toBeGreaterThan(0);
  for (const sql of lookups) {
    const plan = planOf(sql).join("\n");
    expect(plan).toMatch(/USING (COVERING )?INDEX \S+ \((name=\? AND account_id=\?|account_id=\? AND name=\?)\)/);
  }
});
