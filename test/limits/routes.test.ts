import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { LIMITS } from "../../common/limits-catalog";
import { validEntries } from "../../scripts/lib/samples";
import { DEFAULT_BUNDLE_LIMITS } from "../../server/bundles/bundle-limits";
import type { Fixture } from "../../server/seed/model";
import { parseLimitsBody } from "../../tools/deploy/limits";
import { bundleDir, uploadVersion } from "../helpers/bundles";
import {
  baseFixture,
  DEMO_KEY,
  expectEnvelope,
  OTHER_KEY,
  READ_KEY,
  startTestEmulator,
  stopTestEmulator,
  type TestEmulator,
} from "../helpers/emulator";

// acc_test has a developer override of 80 sounds; ext_override also has its own override of 60 (it wins)
// and of 5 allowHosts; ext_plain has none. acc_other has no override at all.
function fixture(): Fixture {
  const f = baseFixture();
  const acc = f.accounts[0]!;
  acc.overrides = { max_sounds_per_extension: 80 };
  acc.extensions = [
    { id: "ext_plain", name: "Plain" },
    { id: "ext_override", name: "Overridden", overrides: { max_sounds_per_extension: 60, max_allow_hosts: 5 } },
  ];
  f.accounts[1]!.extensions = [{ id: "ext_other", name: "Other" }];
  return f;
}

let emu: TestEmulator;
const bundles = bundleDir();
beforeAll(async () => {
  emu = await startTestEmulator({ fixture: fixture() });
});
afterAll(async () => {
  await stopTestEmulator(emu);
  bundles.cleanup();
});

const limitsAt = (prefix: "api" | "deploy", id: string, key = DEMO_KEY) =>
  prefix === "api"
    ? emu.clientFor(key).GET("/developer/v1/extensions/{id}/limits", { params: { path: { id } } })
    : emu.clientFor(key).GET("/v1/developer/extensions/{id}/limits", { params: { path: { id } } });

const refused = (): never => {
  throw new Error("the limits were not answered");
};

describe("GET /extensions/:id/limits", () => {
  test("answers the same body at /developer/v1 and /v1/developer", async () => {
    const a = await limitsAt("api", "ext_plain");
    const b = await limitsAt("deploy", "ext_plain", READ_KEY);
    expect(a.response.status).toBe(200);
    expect(b.response.status).toBe(200);
    expect(b.data).toEqual(a.data);
  });

  test("the whole catalogue, grouped by category, with value, source, default, hardMax and overrideKey", async () => {
    const { data: body } = await limitsAt("api", "ext_plain");
    for (const def of LIMITS) {
      expect(body?.limits[def.category][def.key]).toMatchObject({
        default: def.default,
        hardMax: "hardMax" in def ? def.hardMax : null,
        overrideKey: def.key,
        source: expect.any(String),
      });
    }
    expect(body?.limits.account.max_versions_per_extension).toMatchObject({
      value: 100,
      hardMax: 500,
      source: "platform_default",
    });
    // What `ext deploy` inspects against, read from this very body by the CLI's parser.
    expect(parseLimitsBody(body ?? refused()).bundle).toEqual({
      ...DEFAULT_BUNDLE_LIMITS,
      max_sounds_per_extension: 80,
    });
    const overridden = parseLimitsBody((await limitsAt("deploy", "ext_override")).data ?? refused());
    expect(overridden.bundle).toEqual({ ...DEFAULT_BUNDLE_LIMITS, max_sounds_per_extension: 60, max_allow_hosts: 5 });
    expect(overridden.source("max_allow_hosts")).toBe("extension_override");
  });

  test("sounds.resolvedLimit and its source follow the spec's priority", async () => {
    expect((await limitsAt("api", "ext_plain")).data?.sounds).toMatchObject({
      resolvedLimit: 80,
      source: "developer_override",
    });
    expect((await limitsAt("deploy", "ext_override")).data?.sounds).toMatchObject({
      resolvedLimit: 60,
      source: "extension_override",
    });
    expect((await limitsAt("api", "ext_other", OTHER_KEY)).data?.sounds).toMatchObject({
      resolvedLimit: 50,
      source: "platform_default",
    });
  });

  test("an override never passes a hard limit", async () => {
    // Writers refuse such a value (fixtures, control plane); a row stored out of band is clamped on read.
    const { db } = emu.runtime;
    db.write(() =>
      db.$client
        .prepare("INSERT INTO extension_overrides (extension_id, limit_key, value, updated_at) VALUES (?, ?, ?, ?)")
        .run("ext_override", "max_versions_per_extension", 900, emu.clock.iso()),
    );
    const { data: body } = await limitsAt("api", "ext_override");
    expect(body?.limits.account.max_versions_per_extension).toMatchObject({ value: 500, source: "extension_override" });
  });

  test("usage counts versions, secrets and the account's extensions", async () => {
    const file = await bundles.make([{ name: "manifest.json", data: "{}" }]);
    await uploadVersion(emu, "ext_plain", { version: "1", bundle: file });
    await emu.client.PUT("/developer/v1/extensions/{id}/secrets/{key}", {
      params: { path: { id: "ext_plain", key: "TOKEN" } },
      body: { value: "s3cret" },
    });
    const { data: body } = await limitsAt("deploy", "ext_plain");
    expect(body?.usage).toMatchObject({ extensions: 2, versions: 1, archivedVersions: 0, secrets: 1, apiKeys: 2 });
  });

  test("usage.teamMembers counts the implicit owner, as the max_team_members cap does", async () => {
    // acc_other has no member rows: the owner alone is one member.
    expect((await limitsAt("api", "ext_other", OTHER_KEY)).data?.usage.teamMembers).toBe(1);
    emu.runtime.services.accounts.addMember("acc_other", { email: "dev@example.com", role: "developer" });
    const { data: body } = await limitsAt("api", "ext_other", OTHER_KEY);
    expect(body?.usage.teamMembers).toBe(2);
    expect(body?.usage.teamMembers).toBe(emu.runtime.services.accounts.listMembers("acc_other").count);
  });

  test("404 for another account's extension at both paths; 401 without a key", async () => {
    expectEnvelope(await limitsAt("api", "ext_other"), 404, "extension_not_found");
    expectEnvelope(await limitsAt("deploy", "ext_other"), 404, "extension_not_found");
    expectEnvelope(
      await emu.clientFor(null).GET("/v1/developer/extensions/{id}/limits", { params: { path: { id: "ext_plain" } } }),
      401,
      "unauthorized",
    );
  });
});

describe("POST /extensions/:id/versions against the resolved sound limit", () => {
  test("51 sounds fail with the default limit and pass with a developer override of 80", async () => {
    const file = await bundles.make(validEntries({ sounds: 51 }));
    const refused = expectEnvelope(
      await uploadVersion(emu, "ext_other", { version: "1", bundle: file }, OTHER_KEY),
      422,
      "bundle_invalid",
    );
    expect(refused.details).toEqual([
      expect.objectContaining({ path: "manifest.json", limit: "max_sounds_per_extension", max: 50, current: 51 }),
    ]);
    expect((await uploadVersion(emu, "ext_plain", { version: "51-sounds", bundle: file })).response.status).toBe(202);
  });

  test("an extension override beats the developer override", async () => {
    const file = await bundles.make(validEntries({ sounds: 61 }));
    expect((await uploadVersion(emu, "ext_plain", { version: "61-sounds", bundle: file })).response.status).toBe(202); // 61 ≤ 80
    const refused = expectEnvelope(
      await uploadVersion(emu, "ext_override", { version: "1", bundle: file }),
      422,
      "bundle_invalid",
    );
    expect(refused.details).toEqual([
      expect.objectContaining({ limit: "max_sounds_per_extension", max: 60, current: 61 }),
    ]);
  });
});
