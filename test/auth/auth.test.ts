/**
 * Developer API authentication over a real socket: 401 for missing, malformed, unknown and revoked keys
 * (with WWW-Authenticate), 403 naming the missing scope, a case-insensitive scheme, and keys that exist on
 * disk only as hashes.
 */

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { legacyKeyHash } from "../../server/auth/keys";
import { apiKeys } from "../../server/db/schema";
import {
  baseFixture,
  DEMO_KEY,
  expectEnvelope,
  type RawResponse,
  READ_KEY,
  startTestEmulator,
  stopTestEmulator,
  type TestEmulator,
} from "../helpers/emulator";

const REVOKED_KEY = "ext_test_key_to_be_revoked_0123456789ab";

let emu: TestEmulator;
beforeAll(async () => {
  const fixture = baseFixture();
  fixture.accounts[0]!.apiKeys!.push({ name: "revoked", key: REVOKED_KEY, scopes: ["*"] });
  emu = await startTestEmulator({ fixture });
});
afterAll(() => stopTestEmulator(emu));

function expect401(res: RawResponse | { response: Response; error?: unknown }, why: RegExp) {
  const error = expectEnvelope(res, 401, "unauthorized");
  expect(("response" in res ? res.response : res).headers.get("www-authenticate")).toMatch(/^Bearer/);
  expect(error.message).toMatch(why);
}

/** GET /developer/v1/extensions acting with `key` (null: no Authorization header). */
const listWith = (key: string | null) => emu.clientFor(key).GET("/developer/v1/extensions");
/** The same request with an Authorization header the typed client would never send. */
const listWithHeader = (authorization: string) =>
  emu.rawRequest("GET", "/developer/v1/extensions", { headers: { authorization } });

describe("GET /extensions (authentication)", () => {
  test("missing Authorization → 401 unauthorized", async () => {
    expect401(await listWith(null), /Missing/);
  });

  test("malformed Authorization → 401 unauthorized", async () => {
    for (const value of [
      "Basic dXNlcjpwYXNz",
      "Bearer",
      "Bearer ",
      `Token ${DEMO_KEY}`,
      `Bearer ${DEMO_KEY} extra`,
      DEMO_KEY,
    ]) {
      expect401(await listWithHeader(value), /Malformed/);
    }
  });

  test("unknown key → 401 unauthorized", async () => {
    expect401(await listWith("ext_not_a_real_key_at_all_000000000000"), /Invalid/);
    // A near miss is as unknown as anything else.
    expect401(await listWith(`${DEMO_KEY.slice(0, -1)}X`), /Invalid/);
  });

  // Direct writes below go through `db.write`, the write helper every service uses: what moves the read caches.
  // Another process writes through the server (test/binary/seed-beside-server.slow.test.ts).
  test("a key refused as unknown works at its next request once it exists", async () => {
    const key = "ext_test_key_created_later_here_012345";
    // Twice: the second refusal is answered from the server's memory of the unknown key.
    for (let i = 0; i < 2; i++) expect401(await listWith(key), /Invalid/);
    const { db } = emu.runtime;
    db.write(() =>
      db.$client
        .prepare(
          "INSERT INTO api_keys (id, account_id, name, key_hash, key_prefix, scopes, created_at) SELECT ?, account_id, ?, ?, ?, '[\"*\"]', created_at FROM api_keys LIMIT 1",
        )
        .run(`key_${key.slice(-6)}`, key.slice(-12), legacyKeyHash(key), key.slice(0, 8)),
    );
    expect((await listWith(key)).response.status).toBe(200);
  });

  test("revoked key → 401 unauthorized at once, even when the server remembers it", async () => {
    // Twice: the second success is answered from the server's memory of the key.
    for (let i = 0; i < 2; i++) expect((await listWith(REVOKED_KEY)).response.status).toBe(200);
    emu.runtime.db.write((tx) =>
      tx.update(apiKeys).set({ revokedAt: emu.clock.iso() }).where(eq(apiKeys.name, "revoked")).run(),
    );
    expect401(await listWith(REVOKED_KEY), /Invalid/);
  });

  test("a key's first request sees a commit even when the list was cached through another key", async () => {
    const created = await emu.client.POST("/developer/v1/extensions", { body: { name: "Seen By Both Keys" } });
    const id = created.data?.extension.id ?? "";
    const nameVia = async (key: string) => (await listWith(key)).data?.extensions.find((e) => e.id === id)?.name;
    expect(await nameVia(DEMO_KEY)).toBe("Seen By Both Keys");
    const { db } = emu.runtime;
    db.write(() => db.$client.prepare("UPDATE extensions SET name = 'Renamed Directly' WHERE id = ?").run(id));
    // READ_KEY has not been used yet in this test file: its request takes the lookup path, not the remembered one.
    expect(await nameVia(READ_KEY)).toBe("Renamed Directly");
  });

  test("the scheme is case-insensitive", async () => {
    for (const scheme of ["bearer", "BEARER", "BeArEr"]) {
      const res = await listWithHeader(`${scheme} ${DEMO_KEY}`);
      expect(res.status).toBe(200);
      expect(res.body).toHaveProperty("extensions");
    }
  });

  test("a bad key is a 401 whatever the body (auth comes before parsing)", async () => {
    const res = await emu.rawRequest("POST", "/developer/v1/extensions", {
      key: "ext_wrong_key_0000000000000000000000000",
      body: "{not json",
      headers: { "content-type": "application/json" },
    });
    expect401(res, /Invalid/);
  });
});

describe("scopes", () => {
  test("a read-only key can read", async () => {
    expect((await listWith(READ_KEY)).response.status).toBe(200);
  });

  test("a read-only key → 403 forbidden naming the scope, on every write", async () => {
    const created = await emu.client.POST("/developer/v1/extensions", { body: { name: "Scoped" } });
    const id = created.data?.extension.id ?? "";
    const byId = { params: { path: { id } } };
    const readOnly = emu.clientFor(READ_KEY);
    const writes = [
      () => readOnly.POST("/developer/v1/extensions", { body: { name: "No" } }),
      () => readOnly.PATCH("/developer/v1/extensions/{id}", { ...byId, body: { name: "No" } }),
      () => readOnly.DELETE("/developer/v1/extensions/{id}", byId),
    ];
    for (const write of writes) {
      const error = expectEnvelope(await write(), 403, "forbidden");
      expect(error.message).toContain('"extensions:write"');
    }
    expect((await emu.client.GET("/developer/v1/extensions/{id}", byId)).data?.name).toBe("Scoped");
  });

  test("the scope is checked before validation: an invalid body with a read-only key → 403", async () => {
    expectEnvelope(
      await emu.rawRequest("POST", "/developer/v1/extensions", { key: READ_KEY, json: { bogus: true } }),
      403,
      "forbidden",
    );
  });

  test("but after parsing: malformed JSON with a read-only key → 422, a wrong Content-Type → 415", async () => {
    const headers = { "content-type": "application/json" };
    expectEnvelope(
      await emu.rawRequest("POST", "/developer/v1/extensions", { key: READ_KEY, body: "{oops", headers }),
      422,
      "validation_error",
    );
    expectEnvelope(
      await emu.rawRequest("POST", "/developer/v1/extensions", {
        key: READ_KEY,
        body: "x",
        headers: { "content-type": "text/plain" },
      }),
      415,
      "unsupported_media_type",
    );
  });
});

describe("key storage", () => {
  const hashOf = (e: TestEmulator, name: string) =>
    e.runtime.db.$client
      .prepare<{ key_hash: string }, [string]>("SELECT key_hash FROM api_keys WHERE name = ?")
      .get(name)!.key_hash;

  test("only keyed hashes (HMAC-SHA256) are stored; no plaintext key nor its bare SHA-256 in the SQLite file or its WAL", async () => {
    const rows = emu.runtime.db.select().from(apiKeys).all();
    expect(rows.length).toBeGreaterThanOrEqual(3);
    for (const r of rows) expect(r.keyHash).toMatch(/^hmac:[0-9a-f]{64}$/);

    const file = join(emu.dataDir, "ext.sqlite");
    const bytes = [file, `${file}-wal`]
      .filter(existsSync)
      .map((f) => readFileSync(f).toString("latin1"))
      .join("");
    expect(bytes.length).toBeGreaterThan(0);
    // The stored hash is there (proving we read the right bytes); the plaintext and its unsalted hash are not.
    expect(bytes).toContain(hashOf(emu, "full"));
    for (const key of [DEMO_KEY, READ_KEY, REVOKED_KEY]) {
      expect(bytes).not.toContain(key);
      expect(bytes).not.toContain(legacyKeyHash(key));
    }
  });

  test("the hash is keyed by the data directory's secret: the same key hashes differently in another one", async () => {
    const other = await startTestEmulator();
    try {
      expect((await other.clientFor(DEMO_KEY).GET("/developer/v1/extensions")).response.status).toBe(200);
      expect(hashOf(other, "full")).not.toBe(hashOf(emu, "full"));
    } finally {
      await stopTestEmulator(other);
    }
  });

  test("a key stored by an earlier version (unsalted SHA-256) still authenticates, and is rehashed keyed on that use", async () => {
    const key = "ext_test_key_stored_by_an_old_version_01";
    emu.runtime.db.$client
      .prepare(
        "INSERT INTO api_keys (id, account_id, name, key_hash, key_prefix, scopes, created_at) SELECT 'key_legacy', account_id, 'legacy', ?, ?, '[\"*\"]', created_at FROM api_keys LIMIT 1",
      )
      .run(legacyKeyHash(key), key.slice(0, 8));
    expect((await listWith(key)).response.status).toBe(200);
    expect(hashOf(emu, "legacy")).toMatch(/^hmac:[0-9a-f]{64}$/);
    expect((await listWith(key)).response.status).toBe(200);
  });
});
