/**
 * A start builds only the services a start uses: the others prepare their SQL statements (drizzle's query
 * building, a large part of a cold start) on their first use, and work the same once built. Building the app
 * builds none of the services its routes call: a route's first request does.
 */
import { Database } from "bun:sqlite";
import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseServerConfig } from "../server/base/config";
import { onFirstUse, onFirstUseEach } from "../server/base/on-first-use";
import { createRuntime, createStarterAccount, type Runtime } from "../server/runtime/runtime";
import { createApp } from "../server/start/app";
import { memoryRuntime } from "./helpers/in-process-app";

const prepared: string[] = [];
const realPrepare = Database.prototype.prepare;
let runtime: Runtime | undefined;

beforeEach(() => {
  prepared.length = 0;
  Database.prototype.prepare = function (this: Database, sql: string, ...rest: unknown[]) {
    prepared.push(sql);
    return (realPrepare as (...a: unknown[]) => ReturnType<Database["prepare"]>).call(this, sql, ...rest);
  } as Database["prepare"];
});

afterEach(() => {
  Database.prototype.prepare = realPrepare;
  runtime?.close();
  runtime = undefined;
});

/** What `ext serve` does on a new data directory: the runtime, then (once listening) the starter account. */
function startWithStarter(): Runtime {
  const started = memoryRuntime();
  createStarterAccount(started);
  return started;
}

const touching = (table: string) => prepared.filter((sql) => sql.includes(`"${table}"`));

test("a start prepares no statement of the secrets, installs or limit-request services", () => {
  runtime = startWithStarter();
  expect(runtime.starter).not.toBeNull();
  expect(touching("secrets")).toEqual([]);
  expect(touching("install_counters")).toEqual([]);
  expect(touching("limit_requests")).toEqual([]);
});

test("deciding to create the starter account reads one row, without the accounts listing", () => {
  runtime = startWithStarter();
  expect(prepared.filter((sql) => sql.includes('SELECT COUNT(*) FROM "extensions"'))).toEqual([]);
  expect(runtime.services.accounts.listAccounts().map((a) => a.id)).toEqual([runtime.starter!.accountId]);
});

test("loading the starter account prepares none of the fixture statements it does not use", () => {
  runtime = startWithStarter();
  expect(touching("team_members")).toEqual([]);
  expect(touching("account_overrides").filter((sql) => sql.startsWith("insert"))).toEqual([]);
});

test("a lazily built service is built on its first use and answers as it would have", () => {
  runtime = startWithStarter();
  const { accountId } = runtime.starter!;
  const extension = runtime.services.extensions.create(accountId, { name: "Lazy" });
  expect(touching("secrets")).toEqual([]);
  runtime.services.secrets.put(accountId, extension.id, "API_TOKEN", "v");
  expect(touching("secrets").length).toBeGreaterThan(0);
  expect(runtime.services.secrets.listNames(accountId, extension.id)).toEqual(["API_TOKEN"]);
});

test("building the app prepares no statement of the secrets, installs, versions or limits services", () => {
  runtime = startWithStarter();
  prepared.length = 0;
  createApp(runtime);
  for (const table of ["secrets", "install_counters", "versions", "extension_overrides"])
    expect({ table, prepared: touching(table) }).toEqual({ table, prepared: [] });
});

test("onFirstUse builds once, on the first call, and returns what it built", () => {
  let builds = 0;
  const part = onFirstUse(() => ({ n: ++builds }));
  expect(builds).toBe(0);
  expect(part()).toBe(part());
  expect(builds).toBe(1);
});

test("onFirstUseEach makes each property once, on its first read", () => {
  const made: string[] = [];
  const lazy = onFirstUseEach({
    a: () => {
      made.push("a");
      return 1;
    },
    b: () => {
      made.push("b");
      return 2;
    },
  });
  expect(made).toEqual([]);
  expect(lazy.b + lazy.b).toBe(4);
  expect(made).toEqual(["b"]);
  expect(Object.keys(lazy)).toEqual(["a", "b"]);
});

test("the first list prepares the list's statement alone of the extension service's, and the next reuses it", async () => {
  runtime = startWithStarter();
  const app = createApp(runtime);
  prepared.length = 0;
  const list = () =>
    app.handle(
      new Request("http://localhost/developer/v1/extensions", {
        headers: { authorization: `Bearer ${runtime!.starter!.key}` },
      }),
    );
  expect((await list()).status).toBe(200);
  const ofExtensions = touching("extensions");
  expect(ofExtensions).toHaveLength(1);
  expect(ofExtensions[0]).toStartWith('select "id", "slug", "name"');
  runtime.services.extensions.create(runtime.starter!.accountId, { name: "Second" });
  expect((await list()).status).toBe(200);
  expect(prepared.filter((sql) => sql === ofExtensions[0])).toHaveLength(1);
});

test("a start that makes its database reads no earlier run's dashboard keys, and an empty blob store prepares no sweep", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "ext-lazy-start-"));
  const earlierRunsKeys = () => prepared.filter((sql) => sql.includes('where ("api_keys"."name" = ?'));
  try {
    const config = parseServerConfig({ dataDir, logLevel: "silent" }, {});
    runtime = createRuntime(config);
    expect(runtime.db.created).toBe(true);
    expect(earlierRunsKeys()).toEqual([]);
    expect(touching("versions")).toEqual([]);
    runtime.close();
    // The same data directory again: the database is an earlier run's, so its dashboard keys are looked for.
    runtime = createRuntime(config);
    expect(runtime.db.created).toBe(false);
    expect(earlierRunsKeys()).toHaveLength(1);
  } finally {
    runtime?.close();
    runtime = undefined;
    rmSync(dataDir, { recursive: true, force: true });
  }
});
