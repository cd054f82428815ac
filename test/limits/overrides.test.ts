/** PUT/GET/DELETE /_emulator/overrides/extensions/:id and /_emulator/overrides/accounts/:id. */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
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
  await emu.admin("POST", "/reset");
});

describe("PUT /_emulator/overrides/...", () => {
  test("extension override wins over account override, which wins over the default", async () => {
    const id = await createExtension(emu, "Overridden");
    expect(resolvedSounds(id)).toMatchObject({ value: 50, source: "platform_default" });
    const acc = await emu.admin("PUT", "/overrides/accounts/acc_test", { max_sounds_per_extension: 60 });
    expect(acc.body).toEqual({ scope: "account", id: "acc_test", overrides: { max_sounds_per_extension: 60 } });
    expect(resolvedSounds(id)).toMatchObject({ value: 60, source: "developer_override" });
    const ext = await emu.admin("PUT", `/overrides/extensions/${id}`, {
      max_sounds_per_extension: 80,
      max_versions_per_extension: 500,
    });
    expect(ext.status).toBe(200);
    expect(resolvedSounds(id)).toMatchObject({ value: 80, source: "extension_override" });
    expect((await emu.admin("GET", `/overrides/extensions/${id}`)).body.overrides).toEqual({
      max_sounds_per_extension: 80,
      max_versions_per_extension: 500,
    });
  });

  test("an override may lower a limit below the platform default", async () => {
    const id = await createExtension(emu, "Lowered");
    expect((await emu.admin("PUT", `/overrides/extensions/${id}`, { max_sounds_per_extension: 3 })).status).toBe(200);
    expect(resolvedSounds(id)).toMatchObject({ value: 3, source: "extension_override" });
    expect((await emu.api("GET", `/extensions/${id}/limits`)).body.sounds).toMatchObject({
      resolvedLimit: 3,
      source: "extension_override",
    });
  });

  test("a value past exact integer range (1e300, 2^53) is refused on overrides, limit requests and seeds, writing nothing", async () => {
    await emu.admin("PUT", "/overrides/accounts/acc_test", { max_api_keys: 25 });
    for (const value of [1e300, 2 ** 53, Number.MAX_SAFE_INTEGER + 2]) {
      const res = await emu.admin("PUT", "/overrides/accounts/acc_test", { max_extensions_per_account: value });
      const error = expectEnvelope(res, 422, "validation_error");
      expect(error.details).toEqual([
        {
          field: "max_extensions_per_account",
          message: `max_extensions_per_account must be at most ${Number.MAX_SAFE_INTEGER}`,
        },
      ]);
    }
    expect((await emu.admin("GET", "/overrides/accounts/acc_test")).body.overrides).toEqual({ max_api_keys: 25 });
    // The largest exact integer itself is a value like any other.
    expect(
      (await emu.admin("PUT", "/overrides/accounts/acc_test", { max_extensions_per_account: Number.MAX_SAFE_INTEGER }))
        .status,
    ).toBe(200);

    const request = {
      accountId: "acc_test",
      scope: "account",
      reason: "a launch needs far more room than this",
      limits: { max_api_keys: 1e300 },
    };
    expectEnvelope(await emu.admin("POST", "/limit-requests", request), 422, "validation_error");
    const seeded = await emu.admin("POST", "/seed", {
      accounts: [{ id: "acc_big", name: "Big", overrides: { max_api_keys: 1e300 } }],
    });
    expectEnvelope(seeded, 422, "validation_error");
    expect((await emu.admin("GET", "/state")).body.counts.accounts).toBe(2);
  });

  test("PUT replaces the whole map", async () => {
    await emu.admin("PUT", "/overrides/accounts/acc_test", { max_sounds_per_extension: 60, max_api_keys: 30 });
    const res = await emu.admin("PUT", "/overrides/accounts/acc_test", { max_api_keys: 25 });
    expect(res.body.overrides).toEqual({ max_api_keys: 25 });
    // What is stored, not only the echo: the key left out is gone.
    expect((await emu.admin("GET", "/overrides/accounts/acc_test")).body.overrides).toEqual({ max_api_keys: 25 });
    expect(emu.runtime.services.limits.resolve("max_sounds_per_extension", { accountId: "acc_test" })).toMatchObject({
      value: 50,
      source: "platform_default",
    });
    expect((await emu.admin("PUT", "/overrides/accounts/acc_test", {})).body.overrides).toEqual({});
    expect((await emu.admin("GET", "/overrides/accounts/acc_test")).body.overrides).toEqual({});
  });

  test("unknown keys and values above a hard limit are refused together, and nothing is written", async () => {
    await emu.admin("PUT", "/overrides/accounts/acc_test", { max_api_keys: 30 });
    const res = await emu.admin("PUT", "/overrides/accounts/acc_test", {
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
    expect((await emu.admin("GET", "/overrides/accounts/acc_test")).body.overrides).toEqual({ max_api_keys: 30 });
    expectEnvelope(
      await emu.admin("PUT", "/overrides/accounts/acc_test", { max_api_keys: -1 }),
      422,
      "validation_error",
    );
    expectEnvelope(
      await emu.admin("PUT", "/overrides/accounts/acc_test", { max_api_keys: 2.5 }),
      422,
      "validation_error",
    );
  });

  test("unknown targets are 404s", async () => {
    expectEnvelope(
      await emu.admin("PUT", "/overrides/extensions/ext_missing", { max_sounds_per_extension: 60 }),
      404,
      "extension_not_found",
    );
    expectEnvelope(
      await emu.admin("PUT", "/overrides/accounts/acc_missing", { max_sounds_per_extension: 60 }),
      404,
      "account_not_found",
    );
  });
});

describe("DELETE /_emulator/overrides/...", () => {
  test("removes the scope's overrides; defaults apply again", async () => {
    const id = await createExtension(emu, "Reverted");
    await emu.admin("PUT", `/overrides/extensions/${id}`, { max_sounds_per_extension: 80 });
    const res = await emu.admin("DELETE", `/overrides/extensions/${id}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expect(resolvedSounds(id)).toMatchObject({ value: 50, source: "platform_default" });
    expectEnvelope(await emu.admin("DELETE", "/overrides/accounts/acc_missing"), 404, "account_not_found");
  });
});
