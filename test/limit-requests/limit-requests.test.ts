/** /_emulator/limit-requests: create, list with status, approve (applies at once) or reject. */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import type { LimitRequestCreate } from "../../client";
import { createExtension } from "../helpers/bundles";
import { expectEnvelope, OTHER_KEY, startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";

let emu: TestEmulator;
const REASON = "We run twenty CI pipelines in parallel.";

beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => stopTestEmulator(emu));
beforeEach(async () => {
  await emu.control.POST("/_emulator/reset", {});
});

const byId = (id: string) => ({ params: { path: { id } } });
const requestLimits = (body: LimitRequestCreate) => emu.control.POST("/_emulator/limit-requests", { body });
/** Bodies the document does not allow (no scope, an unknown key) go raw, with the admin token. */
const requestLimitsRaw = (json: unknown) =>
  emu.rawRequest("POST", "/_emulator/limit-requests", { key: emu.runtime.control.adminToken, json });
const approve = (id: string, body: { reason?: string } = {}) =>
  emu.control.POST("/_emulator/limit-requests/{id}/approve", { ...byId(id), body });
const reject = (id: string, body: { reason: string }) =>
  emu.control.POST("/_emulator/limit-requests/{id}/reject", { ...byId(id), body });
const list = async (query: { status?: "pending" | "approved" | "rejected"; accountId?: string } = {}) =>
  (await emu.control.GET("/_emulator/limit-requests", { params: { query } })).data?.limitRequests;
const addKey = () =>
  emu.control.POST("/_emulator/accounts/{accountId}/keys", {
    params: { path: { accountId: "acc_test" } },
    body: { name: "third", scopes: ["*"] },
  });
const setClock = (set: string) => emu.control.POST("/_emulator/clock", { body: { set, freeze: true } });
const putSecret = (id: string, key: string) =>
  emu.client.PUT("/developer/v1/extensions/{id}/secrets/{key}", {
    params: { path: { id, key } },
    body: { value: "v" },
  });
const createdId = async (res: ReturnType<typeof requestLimits>) => {
  const { data, error } = await res;
  if (!data) throw new Error(`the limit request was refused: ${JSON.stringify(error)}`);
  return data.limitRequest.id;
};

describe("POST /_emulator/limit-requests", () => {
  test("account scope: pending until approved, then the override applies to the very next call", async () => {
    await emu.control.PUT("/_emulator/overrides/accounts/{id}", { ...byId("acc_test"), body: { max_api_keys: 2 } });
    expectEnvelope(await addKey(), 422, "limit_exceeded");
    const created = await requestLimits({
      accountId: "acc_test",
      scope: "account",
      limits: { max_api_keys: 5 },
      reason: REASON,
    });
    expect(created.response.status).toBe(201);
    expect(created.data?.limitRequest).toMatchObject({
      scope: "account",
      extensionId: null,
      status: "pending",
      decisionReason: null,
      decidedAt: null,
    });
    expectEnvelope(await addKey(), 422, "limit_exceeded");
    const id = created.data?.limitRequest.id ?? "";
    const approved = await approve(id, { reason: "ok" });
    expect(approved.data?.limitRequest).toMatchObject({ status: "approved", decisionReason: "ok" });
    expect((await addKey()).response.status).toBe(201);
    expectEnvelope(await reject(id, { reason: "too late" }), 409, "limit_request_decided");
  });

  test("reject keeps the limits as they were and records the reason; list filters by status and account", async () => {
    const a = await createdId(
      requestLimits({
        accountId: "acc_test",
        scope: "account",
        limits: { max_extensions_per_account: 40 },
        reason: REASON,
      }),
    );
    await requestLimits({
      accountId: "acc_other",
      scope: "account",
      limits: { max_api_keys: 25 },
      reason: REASON,
    });
    const rejected = await reject(a, { reason: "Needs an Enterprise plan." });
    expect(rejected.data?.limitRequest).toMatchObject({
      status: "rejected",
      decisionReason: "Needs an Enterprise plan.",
    });
    expect((await emu.control.GET("/_emulator/overrides/accounts/{id}", byId("acc_test"))).data?.overrides).toEqual({});
    expect((await list({ status: "rejected" }))?.map((r) => r.id)).toEqual([a]);
    expect(await list({ accountId: "acc_other" })).toHaveLength(1);
    expect(await list()).toHaveLength(2);
    expect((await emu.control.GET("/_emulator/limit-requests/{id}", byId(a))).data?.limitRequest.status).toBe(
      "rejected",
    );
    // A reject without its reason: the document requires one, so it goes raw.
    expectEnvelope(
      await emu.rawRequest("POST", `/_emulator/limit-requests/${a}/reject`, {
        key: emu.runtime.control.adminToken,
        json: {},
      }),
      422,
      "validation_error",
    );
  });

  test("listed oldest first (by creation time, not by insertion order)", async () => {
    await setClock("2030-01-02T00:00:00.000Z");
    const later = await createdId(
      requestLimits({
        accountId: "acc_test",
        scope: "account",
        limits: { max_api_keys: 25 },
        reason: REASON,
      }),
    );
    await setClock("2030-01-01T00:00:00.000Z");
    const earlier = await createdId(
      requestLimits({
        accountId: "acc_other",
        scope: "account",
        limits: { max_api_keys: 25 },
        reason: REASON,
      }),
    );
    await setClock("2030-01-03T00:00:00.000Z");
    const latest = await createdId(
      requestLimits({
        accountId: "acc_test",
        scope: "account",
        limits: { max_api_keys: 30 },
        reason: REASON,
      }),
    );
    expect((await list())?.map((r) => r.id)).toEqual([earlier, later, latest]);
    expect((await list({ accountId: "acc_test" }))?.map((r) => r.id)).toEqual([later, latest]);
  });

  test("extension scope applies to that extension only", async () => {
    const mine = await createExtension(emu, "Scoped");
    const sibling = await createExtension(emu, "Sibling");
    const id = await createdId(
      requestLimits({
        accountId: "acc_test",
        scope: "extension",
        extensionId: mine,
        limits: { max_secrets_per_extension: 21 },
        reason: REASON,
      }),
    );
    await approve(id);
    for (let i = 0; i < 21; i++) expect((await putSecret(mine, `S${i}`)).response.status).toBe(204);
    for (let i = 0; i < 20; i++) await putSecret(sibling, `S${i}`);
    expectEnvelope(await putSecret(sibling, "S20"), 422, "limit_exceeded");
  });

  test("a decrease, or the value in force, is refused with each limit named; an extension's own override counts", async () => {
    const ext = await createExtension(emu, "Lowered");
    await emu.control.PUT("/_emulator/overrides/extensions/{id}", {
      ...byId(ext),
      body: { max_secrets_per_extension: 50 },
    });
    type Case = Pick<LimitRequestCreate, "scope" | "limits"> & { extensionId?: string };
    const cases: [Case, string[]][] = [
      // Default max_api_keys is 20: 20 is not above it, 10 is below.
      [{ scope: "account", limits: { max_api_keys: 20 } }, ["max_api_keys is 20 now, so 20 is not an increase"]],
      [
        { scope: "account", limits: { max_api_keys: 10, max_team_members: 30 } },
        ["max_api_keys is 20 now, so 10 is not an increase"],
      ],
      [
        { scope: "extension", extensionId: ext, limits: { max_secrets_per_extension: 40 } },
        ["max_secrets_per_extension is 50 now, so 40 is not an increase"],
      ],
    ];
    for (const [body, parts] of cases) {
      const res = await requestLimits({ accountId: "acc_test", reason: REASON, ...body } as LimitRequestCreate);
      const error = expectEnvelope(res, 422, "validation_error");
      for (const part of parts) expect(error.message).toContain(part);
      expect(error.details?.map((d) => d.field)).toEqual(
        Object.keys(body.limits)
          .filter((k) => k !== "max_team_members")
          .map((k) => `limits.${k}`),
      );
    }
    expect(await list()).toEqual([]);
    // Above the value in force is accepted.
    const ok = await requestLimits({
      accountId: "acc_test",
      scope: "extension",
      extensionId: ext,
      limits: { max_secrets_per_extension: 51 },
      reason: REASON,
    });
    expect(ok.response.status).toBe(201);
  });

  test("refused: short reason, no limits, unknown key, above the hard limit, scope/extension mismatch, another account's extension", async () => {
    const other = await createExtension(emu, "Not Mine", OTHER_KEY);
    const bad: [unknown, number, string][] = [
      [
        { accountId: "acc_test", scope: "account", limits: { max_api_keys: 30 }, reason: "too short" },
        422,
        "validation_error",
      ],
      [
        { accountId: "acc_test", scope: "account", limits: { max_api_keys: 30 }, reason: "   padded but short      " },
        422,
        "validation_error",
      ],
      [{ accountId: "acc_test", scope: "account", limits: {}, reason: REASON }, 422, "validation_error"],
      [
        { accountId: "acc_test", scope: "account", limits: { max_bananas: 3 }, reason: REASON },
        422,
        "validation_error",
      ],
      [
        { accountId: "acc_test", scope: "account", limits: { max_versions_per_extension: 501 }, reason: REASON },
        422,
        "validation_error",
      ],
      [
        { accountId: "acc_test", scope: "extension", limits: { max_api_keys: 30 }, reason: REASON },
        422,
        "validation_error",
      ],
      [
        { accountId: "acc_test", scope: "account", extensionId: other, limits: { max_api_keys: 30 }, reason: REASON },
        422,
        "validation_error",
      ],
      [
        { accountId: "acc_test", scope: "extension", extensionId: other, limits: { max_api_keys: 30 }, reason: REASON },
        404,
        "extension_not_found",
      ],
      [
        { accountId: "acc_nobody", scope: "account", limits: { max_api_keys: 30 }, reason: REASON },
        404,
        "account_not_found",
      ],
      [{ accountId: "acc_test", limits: { max_api_keys: 30 }, reason: REASON }, 422, "validation_error"],
    ];
    for (const [body, status, code] of bad) expectEnvelope(await requestLimitsRaw(body), status, code);
    expect(await list()).toEqual([]);
    expectEnvelope(await approve("req_missing"), 404, "limit_request_not_found");
  });
});
