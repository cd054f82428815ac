/** /_emulator/limit-requests: create, list with status, approve (applies at once) or reject. */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { createExtension } from "../helpers/bundles";
import { expectEnvelope, OTHER_KEY, startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";

let emu: TestEmulator;
const REASON = "We run twenty CI pipelines in parallel.";

beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => stopTestEmulator(emu));
beforeEach(async () => {
  await emu.admin("POST", "/reset");
});

describe("POST /_emulator/limit-requests", () => {
  test("account scope: pending until approved, then the override applies to the very next call", async () => {
    await emu.admin("PUT", "/overrides/accounts/acc_test", { max_api_keys: 2 });
    expectEnvelope(
      await emu.admin("POST", "/accounts/acc_test/keys", { name: "third", scopes: ["*"] }),
      422,
      "limit_exceeded",
    );
    const created = await emu.admin("POST", "/limit-requests", {
      accountId: "acc_test",
      scope: "account",
      limits: { max_api_keys: 5 },
      reason: REASON,
    });
    expect(created.status).toBe(201);
    expect(created.body.limitRequest).toMatchObject({
      scope: "account",
      extensionId: null,
      status: "pending",
      decisionReason: null,
      decidedAt: null,
    });
    expectEnvelope(
      await emu.admin("POST", "/accounts/acc_test/keys", { name: "third", scopes: ["*"] }),
      422,
      "limit_exceeded",
    );
    const id = created.body.limitRequest.id;
    const approved = await emu.admin("POST", `/limit-requests/${id}/approve`, { reason: "ok" });
    expect(approved.body.limitRequest).toMatchObject({ status: "approved", decisionReason: "ok" });
    expect((await emu.admin("POST", "/accounts/acc_test/keys", { name: "third", scopes: ["*"] })).status).toBe(201);
    expectEnvelope(
      await emu.admin("POST", `/limit-requests/${id}/reject`, { reason: "too late" }),
      409,
      "limit_request_decided",
    );
  });

  test("reject keeps the limits as they were and records the reason; list filters by status and account", async () => {
    const a = (
      await emu.admin("POST", "/limit-requests", {
        accountId: "acc_test",
        scope: "account",
        limits: { max_extensions_per_account: 40 },
        reason: REASON,
      })
    ).body.limitRequest.id;
    await emu.admin("POST", "/limit-requests", {
      accountId: "acc_other",
      scope: "account",
      limits: { max_api_keys: 25 },
      reason: REASON,
    });
    const rejected = await emu.admin("POST", `/limit-requests/${a}/reject`, { reason: "Needs an Enterprise plan." });
    expect(rejected.body.limitRequest).toMatchObject({
      status: "rejected",
      decisionReason: "Needs an Enterprise plan.",
    });
    expect((await emu.admin("GET", "/overrides/accounts/acc_test")).body.overrides).toEqual({});
    expect(
      (await emu.admin("GET", "/limit-requests?status=rejected")).body.limitRequests.map((r: { id: string }) => r.id),
    ).toEqual([a]);
    expect((await emu.admin("GET", "/limit-requests?accountId=acc_other")).body.limitRequests).toHaveLength(1);
    expect((await emu.admin("GET", "/limit-requests")).body.limitRequests).toHaveLength(2);
    expect((await emu.admin("GET", `/limit-requests/${a}`)).body.limitRequest.status).toBe("rejected");
    expectEnvelope(await emu.admin("POST", `/limit-requests/${a}/reject`, {}), 422, "validation_error");
  });

  test("listed oldest first (by creation time, not by insertion order)", async () => {
    await emu.admin("POST", "/clock", { set: "2030-01-02T00:00:00.000Z", freeze: true });
    const later = (
      await emu.admin("POST", "/limit-requests", {
        accountId: "acc_test",
        scope: "account",
        limits: { max_api_keys: 25 },
        reason: REASON,
      })
    ).body.limitRequest.id;
    await emu.admin("POST", "/clock", { set: "2030-01-01T00:00:00.000Z", freeze: true });
    const earlier = (
      await emu.admin("POST", "/limit-requests", {
        accountId: "acc_other",
        scope: "account",
        limits: { max_api_keys: 25 },
        reason: REASON,
      })
    ).body.limitRequest.id;
    await emu.admin("POST", "/clock", { set: "2030-01-03T00:00:00.000Z", freeze: true });
    const latest = (
      await emu.admin("POST", "/limit-requests", {
        accountId: "acc_test",
        scope: "account",
        limits: { max_api_keys: 30 },
        reason: REASON,
      })
    ).body.limitRequest.id;
    expect((await emu.admin("GET", "/limit-requests")).body.limitRequests.map((r: { id: string }) => r.id)).toEqual([
      earlier,
      later,
      latest,
    ]);
    expect(
      (await emu.admin("GET", "/limit-requests?accountId=acc_test")).body.limitRequests.map(
        (r: { id: string }) => r.id,
      ),
    ).toEqual([later, latest]);
  });

  test("extension scope applies to that extension only", async () => {
    const mine = await createExtension(emu, "Scoped");
    const sibling = await createExtension(emu, "Sibling");
    const id = (
      await emu.admin("POST", "/limit-requests", {
        accountId: "acc_test",
        scope: "extension",
        extensionId: mine,
        limits: { max_secrets_per_extension: 21 },
        reason: REASON,
      })
    ).body.limitRequest.id;
    await emu.admin("POST", `/limit-requests/${id}/approve`, {});
    for (let i = 0; i < 21; i++)
      expect((await emu.api("PUT", `/extensions/${mine}/secrets/S${i}`, { json: { value: "v" } })).status).toBe(204);
    for (let i = 0; i < 20; i++) await emu.api("PUT", `/extensions/${sibling}/secrets/S${i}`, { json: { value: "v" } });
    expectEnvelope(
      await emu.api("PUT", `/extensions/${sibling}/secrets/S20`, { json: { value: "v" } }),
      422,
      "limit_exceeded",
    );
  });

  test("a decrease, or the value in force, is refused with each limit named; an extension's own override counts", async () => {
    const ext = await createExtension(emu, "Lowered");
    await emu.admin("PUT", `/overrides/extensions/${ext}`, { max_secrets_per_extension: 50 });
    const cases: [Record<string, unknown>, string[]][] = [
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
      const res = await emu.admin("POST", "/limit-requests", { accountId: "acc_test", reason: REASON, ...body });
      expectEnvelope(res, 422, "validation_error");
      for (const part of parts) expect(res.body.error.message).toContain(part);
      expect(res.body.error.details.map((d: { field: string }) => d.field)).toEqual(
        Object.keys(body.limits as object)
          .filter((k) => k !== "max_team_members")
          .map((k) => `limits.${k}`),
      );
    }
    expect((await emu.admin("GET", "/limit-requests")).body.limitRequests).toEqual([]);
    // Above the value in force is accepted.
    const ok = await emu.admin("POST", "/limit-requests", {
      accountId: "acc_test",
      scope: "extension",
      extensionId: ext,
      limits: { max_secrets_per_extension: 51 },
      reason: REASON,
    });
    expect(ok.status).toBe(201);
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
    for (const [body, status, code] of bad)
      expectEnvelope(await emu.admin("POST", "/limit-requests", body), status, code);
    expect((await emu.admin("GET", "/limit-requests")).body.limitRequests).toEqual([]);
    expectEnvelope(await emu.admin("POST", "/limit-requests/req_missing/approve", {}), 404, "limit_request_not_found");
  });
});
