/**
 * A fixture's new extensions get the slugs the API's create would give them, one after another (the first of
 * base, base-2, … that no extension has), and within a load each name's search goes on where its last one stopped
 * instead of starting over: a fixture of 20,000 accounts each with an extension of the same name took minutes, its
 * load quadratic in them. Real SQLite (in memory), the loader the server runs.
 */
import { Database } from "bun:sqlite";
import { afterEach, expect, test } from "bun:test";
import type { Runtime } from "../../server/runtime/runtime";
import type { Fixture } from "../../server/seed/model";
import { memoryRuntime } from "../helpers/in-process-app";

let runtime: Runtime | undefined;
afterEach(() => runtime?.close());

function start(): Runtime {
  runtime = memoryRuntime();
  return runtime;
}

type FixtureExtension = NonNullable<Fixture["accounts"][number]["extensions"]>[number];
const accounts = (extensions: FixtureExtension[], tag: string): Fixture => ({
  accounts: extensions.map((x, i) => ({ id: `acc_${tag}_${i}`, name: `Developer ${i}`, extensions: [x] })),
});

const slugs = (rt: Runtime) =>
  (rt.db.$client.query("SELECT slug FROM extensions ORDER BY created_at, rowid").all() as { slug: string }[]).map(
    (r) => r.slug,
  );

/**
 * The work a load does to find slugs while `run` runs: each run of a statement that looks extensions up by slug,
 * and each row it returns. The statements prepared meanwhile are watched (drizzle reads a select's rows through
 * Statement#values).
 */
function slugWork(run: () => void): { statements: number; work: number } {
  const prepare = Database.prototype.prepare;
  let statements = 0;
  let work = 0;
  Database.prototype.prepare = function (this: Database, ...args: Parameters<Database["prepare"]>) {
    const statement = prepare.apply(this, args);
    if (/^select .* from "extensions" where .*"extensions"\."slug"/i.test(String(args[0]))) {
      statements++;
      const values = statement.values.bind(statement);
      statement.values = (...params: Parameters<typeof values>) => {
        const result = values(...params);
        work += 1 + result.length;
        return result;
      };
    }
    return statement;
  } as Database["prepare"];
  try {
    run();
  } finally {
    Database.prototype.prepare = prepare;
  }
  return { statements, work };
}

test("400 extensions of one name: the API's slugs, in order, each found where the last one's search stopped", () => {
  const rt = start();
  const seen = slugWork(() => {
    rt.seed(accounts([{ name: "My Extension" }], "one"));
    rt.seed(accounts(Array(399).fill({ name: "My Extension" }), "many"));
  });
  expect(slugs(rt)).toEqual(["my-extension", ...Array.from({ length: 399 }, (_, i) => `my-extension-${i + 2}`)]);
  // One lookup by the first load; the second's first search finds my-extension taken (a lookup and its row) and
  // -2 free, and each one after tries only its own. Starting each search over would take 1 + 2 + … + 400 lookups.
  expect(seen).toEqual({ statements: 1, work: 1 + 3 + 398 });
});

test("2,000 names alike in their first 50 characters: each found at its first try", () => {
  const rt = start();
  const prefix = "Acme Customer Relationship Manager Integration Kit";
  const names = Array.from({ length: 2000 }, (_, i) => ({ name: `${prefix} ${i}` }));
  const seen = slugWork(() => rt.seed(accounts(names, "alike")));
  expect(new Set(slugs(rt)).size).toBe(2000);
  // Reading every slug that shares the name's first 40 characters, as the search once did, reads 0 + 1 + … + 1999 rows.
  expect(seen).toEqual({ statements: 1, work: 2000 });
});

test("a slug an entry gives (an export's) is skipped by the names after it; a later load fills the gaps first", () => {
  const rt = start();
  rt.seed(
    accounts(
      [
        { name: "My Extension" },
        { name: "Other", slug: "my-extension-3" },
        { name: "My Extension" },
        { name: "My Extension" },
      ],
      "first",
    ),
  );
  expect(slugs(rt)).toEqual(["my-extension", "my-extension-3", "my-extension-2", "my-extension-4"]);
  rt.seed(accounts([{ name: "Sound Board" }, { name: "Other", slug: "sound-board-2" }], "second"));
  rt.seed(accounts([{ name: "Sound Board" }, { name: "Sound Board" }], "third"));
  expect(slugs(rt).slice(4)).toEqual(["sound-board", "sound-board-2", "sound-board-3", "sound-board-4"]);
});

test("64-character names: the shortened candidates of one name stay unique across a load", () => {
  const rt = start();
  const long = "b".repeat(70);
  rt.seed(accounts(Array(12).fill({ name: long }), "long"));
  const made = slugs(rt);
  expect(new Set(made).size).toBe(12);
  expect(made.at(-1)).toBe(`${"b".repeat(61)}-12`);
  expect(made.every((s) => s.length <= 64)).toBe(true);
});
