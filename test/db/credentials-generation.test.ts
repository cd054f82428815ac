/**
 * The second generation, the one the memory of authenticated keys compares (`db.credentialsGeneration`,
 * server/db/database.ts): every write moves it except the hot writers marked as leaving keys and accounts alone,
 * so a PATCH does not make the next request look its key up again. Held three ways: the marking itself (nested,
 * rolled back, never leaking into the next transaction); the list of writers that may say it
 * (test/db/data-access.test.ts); and, over real requests, that each of them leaves the key and account rows as they were while a revocation between two of
 * them is still seen at once.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Db, openDatabase } from "../../server/db/database";
import { accounts, apiKeys, teamMembers } from "../../server/db/schema";
import { DEMO_KEY, startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";

const EPOCH = "2026-01-01T00:00:00.000Z";
const insertAccount = (db: Db, id: string) => db.insert(accounts).values({ id, name: id, createdAt: EPOCH }).run();

describe("the credentials generation", () => {
  let dir: string;
  let db: Db;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "ext-credentials-"));
    db = openDatabase(join(dir, "ext.sqlite"));
  });
  afterEach(() => {
    db.$client.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("moves with every write but a writer marked as leaving credentials alone", () => {
    const credentials = () => db.credentialsGeneration.current();
    const marked = db.writer((id: string) => insertAccount(db, id), { credentialsUntouched: true });
    const unmarked = db.writer((id: string) => insertAccount(db, id));
    let c = credentials();
    marked("acc_marked");
    expect(credentials()).toBe(c);
    unmarked("acc_unmarked");
    expect(credentials()).not.toBe(c);
    c = credentials();
    db.write((tx) => insertAccount(tx, "acc_write"));
    expect(credentials()).not.toBe(c);
    // The read caches' generation moves either way.
    const g = db.generation.current();
    marked("acc_marked_2");
    expect(db.generation.current()).not.toBe(g);
  });

  test("a transaction moves it if any write in it may, nested or outer, even rolled back", () => {
    const credentials = () => db.credentialsGeneration.current();
    const marked = db.writer((inner: () => void) => inner(), { credentialsUntouched: true });
    let c = credentials();
    marked(() => db.write((tx) => insertAccount(tx, "acc_inner")));
    expect(credentials()).not.toBe(c);
    c = credentials();
    db.write(() => marked(() => insertAccount(db, "acc_outer")));
    expect(credentials()).not.toBe(c);
    c = credentials();
    expect(() =>
      marked(() =>
        db.write(() => {
          throw new Error("roll back");
        }),
      ),
    ).toThrow("roll back");
    expect(credentials()).not.toBe(c);
    // And the mark does not leak into the next transaction.
    c = credentials();
    marked(() => insertAccount(db, "acc_after"));
    expect(credentials()).toBe(c);
  });
});

describe("the marked writers, over real requests", () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator();
  });
  afterAll(() => stopTestEmulator(emu));
  const api = (method: string, path: string, opts: { key?: string; json?: unknown } = {}) =>
    emu.rawRequest(method, `/developer/v1${path}`, { key: opts.key ?? DEMO_KEY, json: opts.json });
  const idOf = (body: unknown) => (body as { extension: { id: string } }).extension.id;
  const credentialRows = () => {
    const { db } = emu.runtime;
    return [db.select().from(apiKeys).all(), db.select().from(accounts).all(), db.select().from(teamMembers).all()];
  };

  test("a create, a PATCH and a PUT of a secret leave every key, account and member row as it was", async () => {
    const before = credentialRows();
    const created = await api("POST", "/extensions", { json: { name: "Credentials untouched" } });
    expect(created.status).toBe(201);
    const id = idOf(created.body);
    expect((await api("PATCH", `/extensions/${id}`, { json: { description: "changed" } })).status).toBe(200);
    for (const value of ["first-secret-value", "second-secret-value"])
      expect((await api("PUT", `/extensions/${id}/secrets/API_TOKEN`, { json: { value } })).status).toBe(204);
    expect(credentialRows()).toEqual(before);
  });

  test("a key revoked between two PATCHes is refused at the very next request", async () => {
    const made = await emu.control.POST("/_emulator/accounts/{accountId}/keys", {
      params: { path: { accountId: "acc_test" } },
      body: { name: "revoked-between-writes", scopes: ["*"] },
    });
    const key = made.data?.plaintext ?? "";
    const keyId = made.data?.apiKey.id ?? "";
    const created = await api("POST", "/extensions", { key, json: { name: "Revoked between" } });
    expect(created.status).toBe(201);
    const id = idOf(created.body);
    expect((await api("PATCH", `/extensions/${id}`, { key, json: { description: "one" } })).status).toBe(200);
    const revoked = await emu.control.DELETE("/_emulator/accounts/{accountId}/keys/{keyId}", {
      params: { path: { accountId: "acc_test", keyId } },
    });
    expect(revoked.response.status).toBe(204);
    const refused = await api("PATCH", `/extensions/${id}`, { key, json: { description: "two" } });
    expect(refused.status).toBe(401);
    expect((await api("GET", "/extensions", { key: DEMO_KEY })).status).toBe(200);
  });
});
