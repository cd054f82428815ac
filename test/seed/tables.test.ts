/** The schema's list of tables (what a snapshot copies) is every table the database has. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { getTableName } from "drizzle-orm";
import { TABLES_PARENTS_FIRST } from "../../server/db/schema";
import { startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => stopTestEmulator(emu));

test("TABLES_PARENTS_FIRST names every table of the migrated database", () => {
  const tables = emu.runtime.db.$client
    .query<{ name: string }, []>(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '%migrations%'",
    )
    .all()
    .map((t) => t.name);
  expect(TABLES_PARENTS_FIRST.map((t): string => getTableName(t)).sort()).toEqual(tables.sort());
});
