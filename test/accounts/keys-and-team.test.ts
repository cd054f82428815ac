/** /_emulator/accounts/:accountId/keys and /members: the dashboard's API keys and team pages. */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import type { ApiKeyCreate, TeamMemberCreate } from "../../client";
import { legacyKeyHash } from "../../server/auth/keys";
import { expectEnvelope, startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";

let emu: TestEmulator;

beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => stopTestEmulator(emu));
beforeEach(async () => {
  await emu.control.POST("/_emulator/reset", {});
});

const account = (accountId: string) => ({ params: { path: { accountId } } });
const addKey = (accountId: string, body: ApiKeyCreate) =>
  emu.control.POST("/_emulator/accounts/{accountId}/keys", { ...account(accountId), body });
const keyId = async (res: ReturnType<typeof addKey>) => {
  const { data, error } = await res;
  if (!data) throw new Error(`no key: ${JSON.stringify(error)}`);
  return data;
};
const revoke = (accountId: string, id: string) =>
  emu.control.DELETE("/_emulator/accounts/{accountId}/keys/{keyId}", { params: { path: { accountId, keyId: id } } });
const keys = async (accountId: string) =>
  (await emu.control.GET("/_emulator/accounts/{accountId}/keys", account(accountId))).data?.apiKeys;
const addMember = (accountId: string, body: TeamMemberCreate) =>
  emu.control.POST("/_emulator/accounts/{accountId}/members", { ...account(accountId), body });
/** Member bodies the document does not allow (role owner, no role) go raw, with the admin token. */
const addMemberRaw = (accountId: string, json: unknown) =>
  emu.rawRequest("POST", `/_emulator/accounts/${accountId}/members`, { key: emu.runtime.control.adminToken, json });
const removeMember = (accountId: string, memberId: string) =>
  emu.control.DELETE("/_emulator/accounts/{accountId}/members/{memberId}", {
    params: { path: { accountId, memberId } },
  });

describe("POST /_emulator/accounts/:accountId/keys", () => {
  test("returns the plaintext once; it works with its scopes; the listing shows only a prefix; the database only a hash", async () => {
    const res = await addKey("acc_test", { name: "ci", scopes: ["extensions:read"] });
    expect(res.response.status).toBe(201);
    const { apiKey, plaintext } = await keyId(Promise.resolve(res));
    expect(plaintext).toMatch(/^ext_[0-9A-Za-z]{40}$/);
    expect(apiKey).toMatchObject({
      accountId: "acc_test",
      name: "ci",
      scopes: ["extensions:read"],
      revokedAt: null,
      keyPrefix: plaintext.slice(0, 8),
    });
    expect((await emu.clientFor(plaintext).GET("/developer/v1/extensions")).response.status).toBe(200);
    expectEnvelope(
      await emu.clientFor(plaintext).POST("/developer/v1/extensions", { body: { name: "No" } }),
      403,
      "forbidden",
    );
    const list = await emu.control.GET("/_emulator/accounts/{accountId}/keys", account("acc_test"));
    expect(list.data?.apiKeys.map((k) => k.name).sort()).toEqual(["ci", "full", "read"]);
    expect(JSON.stringify(list.data)).not.toContain(plaintext);
    const row = emu.runtime.db.$client
      .prepare<{ key_hash: string }, [string]>("SELECT key_hash FROM api_keys WHERE id = ?")
      .get(apiKey.id)!;
    expect(row.key_hash).toMatch(/^hmac:[0-9a-f]{64}$/);
    expect(row.key_hash).not.toBe(legacyKeyHash(plaintext));
  });

  test("unknown account → 404 account_not_found; bad scopes or missing name → 422", async () => {
    expectEnvelope(await addKey("acc_nobody", { name: "x", scopes: ["*"] }), 404, "account_not_found");
    // Bodies the document does not allow go raw, with the admin token.
    const addKeyRaw = (json: unknown) =>
      emu.rawRequest("POST", "/_emulator/accounts/acc_test/keys", { key: emu.runtime.control.adminToken, json });
    expectEnvelope(await addKeyRaw({ name: "x", scopes: ["root"] }), 422, "validation_error");
    expectEnvelope(await addKey("acc_test", { name: "x", scopes: [] }), 422, "validation_error");
    expectEnvelope(await addKeyRaw({ scopes: ["*"] }), 422, "validation_error");
  });

  test("at most 20 active keys: the 21st is a 422 limit_exceeded; a revoked key frees its place", async () => {
    // acc_test starts with 2 keys from the fixture.
    const ids: string[] = [];
    for (let i = 0; i < 18; i++)
      ids.push((await keyId(addKey("acc_test", { name: `k${i}`, scopes: ["*"] }))).apiKey.id);
    const refused = await addKey("acc_test", { name: "k21", scopes: ["*"] });
    const error = expectEnvelope(refused, 422, "limit_exceeded");
    expect(error.details![0]).toMatchObject({ limit: "max_api_keys", max: 20, current: 20 });
    expect((await revoke("acc_test", ids[0]!)).response.status).toBe(204);
    expect((await addKey("acc_test", { name: "k21", scopes: ["*"] })).response.status).toBe(201);
    expect((await emu.control.GET("/_emulator/state")).data?.counts).toMatchObject({
      apiKeys: 20 + 1,
      revokedApiKeys: 1,
    });
  });

  test("an account override sets the key cap (here lowered to 2)", async () => {
    await emu.control.PUT("/_emulator/overrides/accounts/{id}", {
      params: { path: { id: "acc_other" } },
      body: { max_api_keys: 2 },
    });
    expect((await addKey("acc_other", { name: "second", scopes: ["*"] })).response.status).toBe(201);
    expect(
      expectEnvelope(await addKey("acc_other", { name: "third", scopes: ["*"] }), 422, "limit_exceeded").details![0]!
        .max,
    ).toBe(2);
  });
});

describe("DELETE /_emulator/accounts/:accountId/keys/:keyId", () => {
  test("revocation works at once, is idempotent, and is listed with revokedAt", async () => {
    const { apiKey, plaintext } = await keyId(addKey("acc_test", { name: "temp", scopes: ["*"] }));
    expect((await emu.clientFor(plaintext).GET("/developer/v1/extensions")).response.status).toBe(200);
    const revoked = await revoke("acc_test", apiKey.id);
    expect(revoked.response.status).toBe(204);
    expect(await revoked.response.text()).toBe("");
    expectEnvelope(await emu.clientFor(plaintext).GET("/developer/v1/extensions"), 401, "unauthorized");
    const first = (await keys("acc_test"))?.find((k) => k.id === apiKey.id)?.revokedAt;
    expect(first).toEqual(expect.any(String));
    expect((await revoke("acc_test", apiKey.id)).response.status).toBe(204);
    expect((await keys("acc_test"))?.find((k) => k.id === apiKey.id)?.revokedAt).toBe(first);
  });

  test("a key of another account, or an unknown key, is a 404", async () => {
    const { apiKey } = await keyId(addKey("acc_other", { name: "theirs", scopes: ["*"] }));
    expectEnvelope(await revoke("acc_test", apiKey.id), 404, "api_key_not_found");
    expectEnvelope(await revoke("acc_test", "key_missing"), 404, "api_key_not_found");
  });
});

describe("/_emulator/accounts/:accountId/members", () => {
  test("add, list and remove members; the owner counts, so 9 can be added and the 10th is refused", async () => {
    const ids: string[] = [];
    for (let i = 1; i <= 9; i++) {
      const res = await addMember("acc_test", { email: `dev${i}@example.com`, role: i === 1 ? "admin" : "developer" });
      expect(res.response.status).toBe(201);
      ids.push(res.data?.member.id ?? "");
    }
    const refused = await addMember("acc_test", { email: "dev10@example.com", role: "viewer" });
    expect(expectEnvelope(refused, 422, "limit_exceeded").details![0]).toMatchObject({
      limit: "max_team_members",
      max: 10,
      current: 10,
    });
    const list = (await emu.control.GET("/_emulator/accounts/{accountId}/members", account("acc_test"))).data;
    expect(list?.count).toBe(10);
    expect(list?.max).toBe(10);
    expect(list?.members).toHaveLength(9);
    expect((await removeMember("acc_test", ids[0]!)).response.status).toBe(204);
    expect((await addMember("acc_test", { email: "dev10@example.com", role: "viewer" })).response.status).toBe(201);
  });

  test("a duplicate email (any case) is a 409; owner is not an addable role; unknown member is a 404", async () => {
    expect((await addMember("acc_test", { email: "Ana@Example.com", role: "developer" })).data?.member.email).toBe(
      "ana@example.com",
    );
    expectEnvelope(await addMember("acc_test", { email: "ana@example.com", role: "viewer" }), 409, "member_exists");
    expectEnvelope(await addMemberRaw("acc_test", { email: "bo@example.com", role: "owner" }), 422, "validation_error");
    expectEnvelope(await addMemberRaw("acc_test", { email: "bo@example.com" }), 422, "validation_error");
    expectEnvelope(await removeMember("acc_test", "mem_missing"), 404, "member_not_found");
    expectEnvelope(
      await emu.control.GET("/_emulator/accounts/{accountId}/members", account("acc_nobody")),
      404,
      "account_not_found",
    );
  });
});
