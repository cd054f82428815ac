/** PUT/GET/DELETE /_emulator/overrides/extensions/:id and /_emulator/overrides/accounts/:id. */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import type { LimitValues } from "../../client";
import { createExtension } from "../helpers/bundles";
import { expectEnvelope, startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";

let emu: TestEmulator;
const resolvedSounds = (id: string) =>
  emu.runtime.services.limits.resolve("max_sounds_per_extension", { accountId: "acc_test", extensionId: id });

beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => stopTestEmulator(emu));
beforeEach(async () => {
  await emu.control.POST("/_emulator/reset", {});
});

const ids = (id: string) => ({ params: { path: { id } } });
const putAccount = (id: string, body: LimitValues) =>
  emu.control.PUT("/_emulator/overrides/accounts/{id}", { ...ids(id), body });
const putExtension = (id: string, body: LimitValues) =>
  emu.control.PUT("/_emulator/overrides/extensions/{id}", { ...ids(id), body });
const accountOverrides = async (id: string) =>
  (await emu.control.GET("/_emulator/overrides/accounts/{id}", ids(id))).data?.overrides;
const extensionOverrides = async (id: string) =>
  (await emu.control.GET("/_emulator/overrides/extensions/{id}", ids(id))).data?.overrides;
/** Bodies the document does not allow (unknown keys, values out of range) go raw. */
const putAccountRaw = (id: string, json: unknown) =>
  emu.rawRequest("PUT", `/_emulator/overrides/accounts/${id}`, { key: emu.runtime.control.adminToken, json });

describe("PUT /_emulator/overrides/...", () => {
  test("extension override wins over account override, which wins over the default", async () => {
    const id = await createExtension(emu, "Overridden");
    expect(resolvedSounds(id)).toMatchObject({ value: 50, source: "platform_default" });
    const acc = await putAccount("acc_test", { max_sounds_per_extension: 60 });
    expect(acc.data).toEqual({ scope: "account", id: "acc_test", overrides: { max_sounds_per_extension: 60 } });
    expect(resolvedSounds(id)).toMatchObject({ value: 60, source: "developer_override" });
    const ext = await putExtension(id, {
      max_sounds_per_extension: 80,
      max_versions_per_extension: 500,
    });
    expect(ext.response.status).toBe(200);
    expect(resolvedSounds(id)).toMatchObject({ value: 80, source: "extension_override" });
    expect(await extensionOverrides(id)).toEqual({
      max_sounds_per_extension: 80,
      max_versions_per_extension: 500,
    });
  });

  test("an override may lower a limit below the platform default", async () => {
    const id = await createExtension(emu, "Lowered");
    expect((await putExtension(id, { max_sounds_per_extension: 3 })).response.status).toBe(200);
    expect(resolvedSounds(id)).toMatchObject({ value: 3, source: "extension_override" });
    expect((await emu.client.GET("/developer/v1/extensions/{id}/limits", ids(id))).data?.sounds).toMatchObject({
      resolvedLimit: 3,
      source: "extension_override",
    });
  });

  test("a value past exact integer range (1e300, 2^53) is refused on overrides, limit requests and seeds, writing nothing", async () => {
    await putAccount("acc_test", { max_api_keys: 25 });
    for (const value of [1e300, 2 ** 53, Number.MAX_SAFE_INTEGER + 2]) {
      const res = await putAccount("acc_test", { max_extensions_per_account: value });
      const error = expectEnvelope(res, 422, "validation_error");
      expect(error.details).toEqual([
        {
          field: "max_extensions_per_account",
          message: `max_extensions_per_account must be at most ${Number.MAX_SAFE_INTEGER}`,
        },
      ]);
    }
    expect(await accountOverrides("acc_test")).toEqual({ max_api_keys: 25 });
    // The largest exact integer itself is a value like any other.
    expect(
      (await putAccount("acc_test", { max_extensions_per_account: Number.MAX_SAFE_INTEGER })).response.status,
    ).toBe(200);

    const request = {
      accountId: "acc_test",
      scope: "account" as const,
      reason: "a launch needs far more room than this",
      limits: { max_api_keys: 1e300 },
    };
    expectEnvelope(await emu.control.POST("/_emulator/limit-requests", { body: request }), 422, "validation_error");
    const seeded = await emu.control.POST("/_emulator/seed", {
      body: { accounts: [{ id: "acc_big", name: "Big", overrides: { max_api_keys: 1e300 } }] },
    });
    expectEnvelope(seeded, 422, "validation_error");
    expect((await emu.control.GET("/_emulator/state")).data?.counts.accounts).toBe(2);
  });

  test("PUT replaces the whole map", async () => {
    await putAccount("acc_test", { max_sounds_per_extension: 60, max_api_keys: 30 });
    const res = await putAccount("acc_test", { max_api_keys: 25 });
    expect(res.data?.overrides).toEqual({ max_api_keys: 25 });
    // What is stored, not only the echo: the key left out is gone.
    expect(await accountOverrides("acc_test")).toEqual({ max_api_keys: 25 });
    expect(emu.runtime.services.limits.resolve("max_sounds_per_extension", { accountId: "acc_test" })).toMatchObject({
      value: 50,
      source: "platform_default",
    });
    expect((await putAccount("acc_test", {})).data?.overrides).toEqual({});
    expect(await accountOverrides("acc_test")).toEqual({});
  });

  test("unknown keys and values above a hard limit are refused together, and nothing is written", async () => {
    await putAccount("acc_test", { max_api_keys: 30 });
    const res = await putAccountRaw("acc_test", {
      max_bananas: 3,
      max_versions_per_extension: 501,
      invocation_timeout_seconds: 121,
      max_api_keys: 40,
    });
    const error = expectEnvelope(res, 422, "validation_error");
    expect(error.details!.map((d) => d.field)).toEqual([
      "max_bananas",
      "max_versions_per_extension",
      "invocation_timeout_seconds",
    ]);
    expect(await accountOverrides("acc_test")).toEqual({ max_api_keys: 30 });
    expectEnvelope(await putAccount("acc_test", { max_api_keys: -1 }), 422, "validation_error");
    expectEnvelope(await putAccount("acc_test", { max_api_keys: 2.5 }), 422, "validation_error");
  });

  test("unknown targets are 404s", async () => {
    expectEnvelope(await putExtension("ext_missing", { max_sounds_per_extension: 60 }), 404, "extension_not_found");
    expectEnvelope(await putAccount("acc_missing", { max_sounds_per_extension: 60 }), 404, "account_not_found");
  });
});

describe("DELETE /_emulator/overrides/...", () => {
  test("removes the scope's overrides; defaults apply again", async () => {
    const id = await createExtension(emu, "Reverted");
    await putExtension(id, { max_sounds_per_extension: 80 });
    const res = await emu.control.DELETE("/_emulator/overrides/extensions/{id}", ids(id));
    expect(res.response.status).toBe(204);
    expect(await res.response.text()).toBe("");
    expect(resolvedSounds(id)).toMatchObject({ value: 50, source: "platform_default" });
    expectEnvelope(
      await emu.control.DELETE("/_emulator/overrides/accounts/{id}", ids("acc_missing")),
      404,
      "account_not_found",
    );
  });
});
