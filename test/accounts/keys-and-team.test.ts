/** /_emulator/accounts/:accountId/keys and /members: the dashboard's API keys and team pages. */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { legacyKeyHash } from "../../src/auth/keys";
import { expectEnvelope, startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";

let emu: TestEmulator;

beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => stopTestEmulator(emu));
beforeEach(async () => {
  await emu.admin("POST", "/reset");
});

describe("POST /_emulator/accounts/:accountId/keys", () => {
  test("returns the plaintext once; it works with its scopes; the listing shows only a prefix; the database only a hash", async () => {
    const res = await emu.admin("POST", "/accounts/acc_test/keys", { name: "ci", scopes: ["extensions:read"] });
    expect(res.status).toBe(201);
    const { apiKey, plaintext } = res.body;
    expect(plaintext).toMatch(/^ext_[0-9A-Za-z]{40}$/);
    expect(apiKey).toMatchObject({
      accountId: "acc_test",
      name: "ci",
      scopes: ["extensions:read"],
      revokedAt: null,
      keyPrefix: plaintext.slice(0, 8),
    });
    expect((await emu.api("GET", "/extensions", { key: plaintext })).status).toBe(200);
    expectEnvelope(await emu.api("POST", "/extensions", { key: plaintext, json: { name: "No" } }), 403, "forbidden");
    const list = await emu.admin("GET", "/accounts/acc_test/keys");
    expect(list.body.apiKeys.map((k: { name: string }) => k.name).sort()).toEqual(["ci", "full", "read"]);
    expect(list.text).not.toContain(plaintext);
    const row = emu.runtime.db.$client
      .prepare<{ key_hash: string }, [string]>("SELECT key_hash FROM api_keys WHERE id = ?")
      .get(apiKey.id)!;
    expect(row.key_hash).toMatch(/^hmac:[0-9a-f]{64}$/);
    expect(row.key_hash).not.toBe(legacyKeyHash(plaintext));
  });

  test("unknown account → 404 account_not_found; bad scopes or missing name → 422", async () => {
    expectEnvelope(
      await emu.admin("POST", "/accounts/acc_nobody/keys", { name: "x", scopes: ["*"] }),
      404,
      "account_not_found",
    );
    expectEnvelope(
      await emu.admin("POST", "/accounts/acc_test/keys", { name: "x", scopes: ["root"] }),
      422,
      "validation_error",
    );
    expectEnvelope(
      await emu.admin("POST", "/accounts/acc_test/keys", { name: "x", scopes: [] }),
      422,
      "validation_error",
    );
    expectEnvelope(await emu.admin("POST", "/accounts/acc_test/keys", { scopes: ["*"] }), 422, "validation_error");
  });

  test("at most 20 active keys: the 21st is a 422 limit_exceeded; a revoked key frees its place", async () => {
    // acc_test starts with 2 keys from the fixture.
    const ids: string[] = [];
    for (let i = 0; i < 18; i++)
      ids.push((await emu.admin("POST", "/accounts/acc_test/keys", { name: `k${i}`, scopes: ["*"] })).body.apiKey.id);
    const refused = await emu.admin("POST", "/accounts/acc_test/keys", { name: "k21", scopes: ["*"] });
    const error = expectEnvelope(refused, 422, "limit_exceeded");
    expect(error.details![0]).toMatchObject({ limit: "max_api_keys", max: 20, current: 20 });
    expect((await emu.admin("DELETE", `/accounts/acc_test/keys/${ids[0]}`)).status).toBe(204);
    expect((await emu.admin("POST", "/accounts/acc_test/keys", { name: "k21", scopes: ["*"] })).status).toBe(201);
    expect((await emu.admin("GET", "/state")).body.counts).toMatchObject({ apiKeys: 20 + 1, revokedApiKeys: 1 });
  });

  test("an account override sets the key cap (here lowered to 2)", async () => {
    await emu.admin("PUT", "/overrides/accounts/acc_other", { max_api_keys: 2 });
    expect((await emu.admin("POST", "/accounts/acc_other/keys", { name: "second", scopes: ["*"] })).status).toBe(201);
    expect(
      expectEnvelope(
        await emu.admin("POST", "/accounts/acc_other/keys", { name: "third", scopes: ["*"] }),
        422,
        "limit_exceeded",
      ).details![0]!.max,
    ).toBe(2);
  });
});

describe("DELETE /_emulator/accounts/:accountId/keys/:keyId", () => {
  test("revocation works at once, is idempotent, and is listed with revokedAt", async () => {
    const { apiKey, plaintext } = (await emu.admin("POST", "/accounts/acc_test/keys", { name: "temp", scopes: ["*"] }))
      .body;
    expect((await emu.api("GET", "/extensions", { key: plaintext })).status).toBe(200);
    const revoked = await emu.admin("DELETE", `/accounts/acc_test/keys/${apiKey.id}`);
    expect(revoked.status).toBe(204);
    expect(revoked.text).toBe("");
    expectEnvelope(await emu.api("GET", "/extensions", { key: plaintext }), 401, "unauthorized");
    const first = (await emu.admin("GET", "/accounts/acc_test/keys")).body.apiKeys.find(
      (k: { id: string }) => k.id === apiKey.id,
    ).revokedAt;
    expect(first).not.toBeNull();
    expect((await emu.admin("DELETE", `/accounts/acc_test/keys/${apiKey.id}`)).status).toBe(204);
    expect(
      (await emu.admin("GET", "/accounts/acc_test/keys")).body.apiKeys.find((k: { id: string }) => k.id === apiKey.id)
        .revokedAt,
    ).toBe(first);
  });

  test("a key of another account, or an unknown key, is a 404", async () => {
    const { apiKey } = (await emu.admin("POST", "/accounts/acc_other/keys", { name: "theirs", scopes: ["*"] })).body;
    expectEnvelope(await emu.admin("DELETE", `/accounts/acc_test/keys/${apiKey.id}`), 404, "api_key_not_found");
    expectEnvelope(await emu.admin("DELETE", "/accounts/acc_test/keys/key_missing"), 404, "api_key_not_found");
  });
});

describe("/_emulator/accounts/:accountId/members", () => {
  test("add, list and remove members; the owner counts, so 9 can be added and the 10th is refused", async () => {
    const ids: string[] = [];
    for (let i = 1; i <= 9; i++) {
      const res = await emu.admin("POST", "/accounts/acc_test/members", {
        email: `dev${i}@example.com`,
        role: i === 1 ? "admin" : "developer",
      });
      expect(res.status).toBe(201);
      ids.push(res.body.member.id);
    }
    const refused = await emu.admin("POST", "/accounts/acc_test/members", {
      email: "dev10@example.com",
      role: "viewer",
    });
    expect(expectEnvelope(refused, 422, "limit_exceeded").details![0]).toMatchObject({
      limit: "max_team_members",
      max: 10,
      current: 10,
    });
    const list = (await emu.admin("GET", "/accounts/acc_test/members")).body;
    expect(list.count).toBe(10);
    expect(list.max).toBe(10);
    expect(list.members).toHaveLength(9);
    expect((await emu.admin("DELETE", `/accounts/acc_test/members/${ids[0]}`)).status).toBe(204);
    expect(
      (await emu.admin("POST", "/accounts/acc_test/members", { email: "dev10@example.com", role: "viewer" })).status,
    ).toBe(201);
  });

  test("a duplicate email (any case) is a 409; owner is not an addable role; unknown member is a 404", async () => {
    expect(
      (await emu.admin("POST", "/accounts/acc_test/members", { email: "Ana@Example.com", role: "developer" })).body
        .member.email,
    ).toBe("ana@example.com");
    expectEnvelope(
      await emu.admin("POST", "/accounts/acc_test/members", { email: "ana@example.com", role: "viewer" }),
      409,
      "member_exists",
    );
    expectEnvelope(
      await emu.admin("POST", "/accounts/acc_test/members", { email: "bo@example.com", role: "owner" }),
      422,
      "validation_error",
    );
    expectEnvelope(
      await emu.admin("POST", "/accounts/acc_test/members", { email: "bo@example.com" }),
      422,
      "validation_error",
    );
    expectEnvelope(await emu.admin("DELETE", "/accounts/acc_test/members/mem_missing"), 404, "member_not_found");
    expectEnvelope(await emu.admin("GET", "/accounts/acc_nobody/members"), 404, "account_not_found");
  });
});
