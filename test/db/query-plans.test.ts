/**
 * What a fixture's load asks SQLite finds its rows through an index, never by reading a table through, nor every
 * key of one name: the loader runs each statement once per row of the fixture, so one that reads through what
 * grows with the fixture makes a large load quadratic. It happened: with the active-key index led by the name
 * alone, the lookup of a key by its account and name read every key of that name, and 20,000 accounts with a key
 * named "ci" each took 24 s to load instead of about 1.5 s (bench/results/latest.md, "a 20,000-account fixture").
 *
 * Every statement prepared while two such fixtures load (one into a new database, one over it, which finds what
 * exists) is recorded as SQLite received it, then explained.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, expect, spyOn, test } from "bun:test";
import { EmulatorClock } from "../../server/base/clock";
import { parseServerConfig } from "../../server/base/config";
import { createLogger } from "../../server/base/logger";
import { createRuntime, type Runtime } from "../../server/runtime/runtime";
import type { Fixture } from "../../server/seed/model";

/** Accounts alike but for their ids, each with a key of the same name, a member and an extension with versions. */
const fixture = (accounts: number): Fixture => ({
  accounts: Array.from({ length: accounts }, (_, i) => ({
    id: `acc_plan_${i}`,
    name: `Developer ${i}`,
    apiKeys: [{ name: "ci", key: `ext_plan_${String(i).padStart(4, "0")}_abcdefghijklmnopqrstuvwxyz`, scopes: ["*"] }],
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
      },
    ],
  })),
});

const sqlText = new Set<string>();
let runtime: Runtime;

beforeAll(() => {
  const prepare = spyOn(Database.prototype, "prepare");
  const query = spyOn(Database.prototype, "query");
  try {
    const config = parseServerConfig({ memory: true, logLevel: "silent" }, {});
    runtime = createRuntime(config, {
      logger: createLogger("silent"),
      clock: new EmulatorClock(),
      seedFixture: fixture(3),
    });
    // Loaded again over itself: every "does it exist" lookup now finds its row.
    runtime.seed(fixture(3));
    for (const call of [...prepare.mock.calls, ...query.mock.calls]) sqlText.add(String(call[0]));
  } finally {
    prepare.mockRestore();
    query.mockRestore();
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

test("the load prepared the statements the test is about", () => {
  const statements = loadStatements();
  expect(statements.length).toBeGreaterThan(10);
  expect(statements.some((sql) => /from "api_keys"/i.test(sql) && /"name" = \?/.test(sql))).toBe(true);
});

test("no statement of a load reads a table of the fixture's rows through", () => {
  const scans = loadStatements().flatMap((sql) =>
    planOf(sql)
      // A SCAN of a table, not of a subquery or of the rows a statement is inserting.
      .filter((step) =>
        /^SCAN (accounts|api_keys|team_members|extensions|versions|secrets|install_counters)\b/.test(step),
      )
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
