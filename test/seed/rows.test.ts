/**
 * The API and the loader give the same rows. The same state is made twice, on two servers whose clocks are
 * frozen at one instant: through the API (a key, a member, an extension, a version submitted and approved and
 * another left pending, installs, a secret, overrides, a limit request), and by one fixture that says the same.
 * Every column of every row matches — the defaulted ones included: each table with a defaulted column (read
 * from the schema) must have rows in the comparison, so a new default cannot go unchecked. Only what each side
 * makes up itself (ids, key hashes, sealed bytes) is set aside.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getTableColumns, getTableName } from "drizzle-orm";
import { versionUpload } from "../../client";
import { TABLES_PARENTS_FIRST } from "../../server/db/schema";
import { placeholderBundle } from "../../server/seed/placeholder-bundle";
import { startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";
import { rowsOf } from "./loaders";

const NOW = "2030-06-01T00:00:00.000Z";
const ACCOUNT = { id: "acc_rows", name: "Rows Developer", createdAt: NOW };
const REASON = "  our CI needs one more key for the nightly run  ";

let api: TestEmulator;
let loaded: TestEmulator;
const scratch = mkdtempSync(join(tmpdir(), "ext-rows-"));

async function frozen(emu: TestEmulator): Promise<void> {
  const res = await emu.control.POST("/_emulator/clock", { body: { set: NOW, freeze: true } });
  expect(res.response.status).toBe(200);
}

beforeAll(async () => {
  api = await startTestEmulator({ fixture: { accounts: [ACCOUNT] } });
  loaded = await startTestEmulator({ fixture: null });
  await frozen(api);
  await frozen(loaded);

  // Through the API.
  const accountId = ACCOUNT.id;
  const key = await api.control.POST("/_emulator/accounts/{accountId}/keys", {
    params: { path: { accountId } },
    body: { name: "ci", scopes: ["*"] },
  });
  const developer = api.clientFor(key.data?.plaintext ?? "");
  await api.control.POST("/_emulator/accounts/{accountId}/members", {
    params: { path: { accountId } },
    body: { email: "Dev@Example.com", role: "developer" },
  });
  await api.control.PUT("/_emulator/overrides/accounts/{id}", {
    params: { path: { id: accountId } },
    body: { max_api_keys: 30 },
  });
  const created = await developer.POST("/developer/v1/extensions", { body: { name: "  Rows Board " } });
  const id = created.data?.extension.id ?? "";
  const byId = { params: { path: { id } } };
  await api.control.PUT("/_emulator/overrides/extensions/{id}", { ...byId, body: { max_secrets_per_extension: 5 } });
  // The bundle a fixture version stands on, uploaded as it is: the two sides' versions are on the same bytes.
  const versionIds: string[] = [];
  for (const version of ["1.0.0", "1.1.0"]) {
    const file = join(scratch, `${version}.tar.gz`);
    writeFileSync(file, placeholderBundle(version).bytes);
    const submitted = await developer.POST("/developer/v1/extensions/{id}/versions", {
      ...byId,
      ...versionUpload({ version, bundle: Bun.file(file) }),
    });
    expect(submitted.response.status).toBe(202);
    versionIds.push(submitted.data?.version.id ?? "");
  }
  const approved = await api.control.POST("/_emulator/versions/{versionId}/approve", {
    params: { path: { versionId: versionIds[0]! } },
  });
  expect(approved.response.status).toBe(200);
  await api.control.POST("/_emulator/extensions/{id}/installs", { ...byId, body: { count: 10 } });
  await developer.PUT("/developer/v1/extensions/{id}/secrets/{key}", {
    params: { path: { id, key: "TOKEN" } },
    body: { value: "rows-secret-value" },
  });
  const request = await api.control.POST("/_emulator/limit-requests", {
    body: { accountId, scope: "account", limits: { max_api_keys: 31 }, reason: REASON },
  });
  expect(request.response.status).toBe(201);

  // The same, by one fixture.
  const seeded = await loaded.rawRequest("POST", "/_emulator/seed", {
    key: loaded.runtime.control.adminToken,
    json: {
      accounts: [
        {
          ...ACCOUNT,
          apiKeys: [{ name: "ci", scopes: ["*"] }],
          teamMembers: [{ email: "Dev@Example.com", role: "developer" }],
          overrides: { max_api_keys: 30 },
          extensions: [
            {
              name: "  Rows Board ",
              overrides: { max_secrets_per_extension: 5 },
              versions: [{ version: "1.0.0" }, { version: "1.1.0", status: "pending" }],
              installs: { byVersion: { "1.0.0": 10 } },
              secrets: [{ name: "TOKEN", value: "rows-secret-value" }],
            },
          ],
          limitRequests: [
            {
              id: "req_rows",
              scope: "account",
              limits: { max_api_keys: 31 },
              reason: REASON,
              status: "pending",
              createdAt: NOW,
            },
          ],
        },
      ],
    },
  });
  expect(`${seeded.status} ${seeded.text}`).toStartWith("200 ");
});

afterAll(async () => {
  await stopTestEmulator(api);
  await stopTestEmulator(loaded);
  rmSync(scratch, { recursive: true, force: true });
});

/**
 * The rows with every id set aside (the loader's limit request has the fixture's id, the API's its own); every
 * instant is NOW, the frozen clock's, written as it is.
 */
const rows = (emu: TestEmulator) => rowsOf(emu.runtime.db, NOW).replace(/"id":"req_rows"/, '"id":"<request>"');

test("every column of every row is the same, made through the API or loaded from a fixture", () => {
  const fromApi = rows(api).replace(/"id":"<id(\d+)>"(?=,"account_id":"acc_rows","scope")/, '"id":"<request>"');
  expect(rows(loaded).split("\n")).toEqual(fromApi.split("\n"));
  expect(fromApi).toContain(`"approved_at":"${NOW}"`);
  expect(fromApi).not.toContain("<now>");
});

test("the comparison covers every table that has a defaulted column", () => {
  const compared = rows(loaded);
  const defaulted = TABLES_PARENTS_FIRST.filter((table) =>
    Object.values(getTableColumns(table)).some((column) => column.hasDefault),
  ).map((table) => getTableName(table));
  expect(defaulted.length).toBeGreaterThan(3);
  for (const table of defaulted)
    expect({ table, rows: compared.includes(`\n${table} {`) }).toEqual({ table, rows: true });
});
