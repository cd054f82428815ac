/**
 * What one hot write costs SQLite, counted on the server's real connection (a real SQLite file, requests over
 * a real socket): the statements a PATCH and a PUT of an existing secret run. The fair write ceiling of the
 * bench (bench/write-ceiling.ts) runs two per write; a write that reads its row twice or checks ownership in a
 * statement of its own shows here before it shows in the bench. Every commit makes the next request look its
 * key up again (one indexed read; the keyed hash is not computed again). BEGIN and COMMIT are not counted.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";

let emu: TestEmulator;
const ran: string[] = [];

type Prepare = (this: Database, ...args: unknown[]) => Record<string, unknown>;
const EXECUTE = ["run", "get", "all", "values"] as const;

/** Every statement prepared through it records each of its executions in `ran` (its SQL). */
function countingPrepare(original: Prepare): Prepare {
  return function (this: Database, ...args) {
    const statement = original.apply(this, args);
    for (const name of EXECUTE) {
      const execute = statement[name] as (...a: unknown[]) => unknown;
      statement[name] = (...a: unknown[]) => {
        ran.push(String(args[0]));
        return execute.apply(statement, a);
      };
    }
    return statement;
  };
}

/** The statements one call runs. */
async function statementsOf(call: () => Promise<{ status: number }>, status: number): Promise<string[]> {
  ran.length = 0;
  const res = await call();
  expect(res.status).toBe(status);
  return [...ran];
}

let extId: string;

const prototype = Database.prototype as unknown as { prepare: Prepare };
const originalPrepare = prototype.prepare;

beforeAll(async () => {
  // For this file only (restored after it): statements drizzle prepares per call are counted too.
  prototype.prepare = countingPrepare(originalPrepare);
  emu = await startTestEmulator();
  const created = await emu.api("POST", "/extensions", { json: { name: "Counted" } });
  expect(created.status).toBe(201);
  extId = created.body.extension.id;
  expect((await emu.api("PUT", `/extensions/${extId}/secrets/API_TOKEN`, { json: { value: "first" } })).status).toBe(
    204,
  );
});

afterAll(async () => {
  prototype.prepare = originalPrepare;
  await stopTestEmulator(emu);
});

describe("statements per hot write", () => {
  test("the counter sees the server's statements", async () => {
    const list = await statementsOf(() => emu.api("GET", `/extensions/${extId}/secrets`), 200);
    expect(list.some((sql) => sql.includes('from "secrets"'))).toBe(true);
  });

  test("PATCH: the key's lookup, the row with its install count, the update, the listed rule", async () => {
    expect((await emu.api("PATCH", `/extensions/${extId}`, { json: { description: "first" } })).status).toBe(200);
    for (let i = 0; i < 3; i++) {
      const sqls = await statementsOf(
        () => emu.api("PATCH", `/extensions/${extId}`, { json: { description: `changed ${i}` } }),
        200,
      );
      expect(sqls).toHaveLength(4);
      expect(sqls[0]).toContain('from "api_keys"');
      expect(sqls[1]).toContain('"install_counters"');
      expect(sqls[2]).toStartWith('update "extensions" set "name"');
      expect(sqls[3]).toStartWith('update "extensions" set "listed_at"');
    }
  });

  test("PUT of an existing secret: the key's lookup, then one update that checks ownership itself", async () => {
    for (let i = 0; i < 3; i++) {
      const sqls = await statementsOf(
        () => emu.api("PUT", `/extensions/${extId}/secrets/API_TOKEN`, { json: { value: `value ${i}` } }),
        204,
      );
      expect(sqls).toHaveLength(2);
      expect(sqls[0]).toContain('from "api_keys"');
      expect(sqls[1]).toStartWith('update "secrets"');
      expect(sqls[1]).toContain('exists (select "id" from "extensions"');
    }
  });

  test("a write that changes keys makes the next request look its key up again", async () => {
    const { db } = emu.runtime;
    db.write(() => db.$client.prepare("UPDATE api_keys SET name = name").run());
    const sqls = await statementsOf(
      () => emu.api("PUT", `/extensions/${extId}/secrets/API_TOKEN`, { json: { value: "after" } }),
      204,
    );
    expect(sqls).toHaveLength(2);
    expect(sqls[0]).toContain('from "api_keys"');
  });
});
