/** POST /_emulator/reset, POST /_emulator/seed, GET /_emulator/state. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { bundleDir, createExtension, submitVersion } from "../helpers/bundles";
import { expectEnvelope, startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";

let emu: TestEmulator;
const bundles = bundleDir();

beforeAll(async () => {
  emu = await startTestEmulator({ config: { rateLimits: true } });
});
afterAll(async () => {
  await stopTestEmulator(emu);
  bundles.cleanup();
});

describe("POST /_emulator/reset", () => {
  test("clears the rate-limit windows (without moving the clock)", async () => {
    await emu.admin("POST", "/reset");
    for (let i = 0; i < 10; i++)
      expect((await emu.api("POST", "/extensions", { json: { name: `Window ${i}` } })).status).toBe(201);
    expectEnvelope(await emu.api("POST", "/extensions", { json: { name: "Eleventh" } }), 429, "rate_limited");
    expect((await emu.admin("POST", "/reset")).status).toBe(200);
    const after = await emu.api("POST", "/extensions", { json: { name: "After Reset" } });
    expect(after.status).toBe(201);
    expect(after.headers.get("x-ratelimit-remaining")).toBe("9");
    await emu.admin("POST", "/reset");
  });

  test("a reset between two tests leaves no trace: rows, bundle files, rate windows, faults, request log, clock", async () => {
    // The first "test" leaves everything behind it can, starting a month from now.
    expect((await emu.admin("POST", "/clock", { advanceSeconds: 86_400 * 30 })).status).toBe(200);
    const id = await createExtension(emu, "Leftover");
    expect((await submitVersion(emu, id, { version: "1.0.0", bundle: await bundles.make() })).status).toBe(202);
    expect((await emu.api("PUT", `/extensions/${id}/secrets/TOKEN`, { json: { value: "s3cret" } })).status).toBe(204);
    expect(
      (await emu.admin("POST", "/accounts/acc_test/members", { email: "dev@example.com", role: "developer" })).status,
    ).toBe(201);
    expect((await emu.admin("PUT", "/overrides/accounts/acc_test", { max_sounds_per_extension: 80 })).status).toBe(200);
    expect((await emu.admin("POST", "/faults", { path: "/nothing-matches", status: 503 })).status).toBe(201);
    const before = (await emu.admin("GET", "/state")).body;
    expect(before.counts).toMatchObject({
      extensions: 1,
      versions: 1,
      secrets: 1,
      teamMembers: 1,
      accountOverrides: 1,
      bundleFiles: 1,
    });
    expect(before.faults).toBe(1);
    expect(before.requestsLogged).toBeGreaterThan(0);
    expect(before.clock.offsetMs).toBeGreaterThan(86_400_000 * 29);
    expect(readdirSync(join(emu.dataDir, "blobs", "objects"))).toHaveLength(1);
    // Nine creates left in this hour's window (one used above) ...
    for (let i = 0; i < 9; i++)
      expect((await emu.api("POST", "/extensions", { json: { name: `Fill ${i}` } })).status).toBe(201);
    expectEnvelope(await emu.api("POST", "/extensions", { json: { name: "Over" } }), 429, "rate_limited");

    const res = await emu.admin("POST", "/reset");
    expect(res.status).toBe(200);
    expect(res.body.reset).toBe(true);
    expect(res.body.seed.accountsCreated).toBe(2);

    const after = (await emu.admin("GET", "/state")).body;
    expect(after.counts).toEqual({
      accounts: 2,
      apiKeys: 3,
      revokedApiKeys: 0,
      teamMembers: 0,
      extensions: 0,
      versions: 0,
      secrets: 0,
      activeInstalls: 0,
      installs: 0,
      accountOverrides: 0,
      extensionOverrides: 0,
      limitRequests: 0,
      bundleFiles: 0,
    });
    expect(after.faults).toBe(0);
    expect(after.requestsLogged).toBe(0);
    expect(after.clock.mode).toBe("real");
    expect(Math.abs(after.clock.offsetMs)).toBeLessThan(1000);
    expect(readdirSync(join(emu.dataDir, "blobs", "objects"))).toEqual([]);
    // The rate window is gone too: a create goes through at once, and the fixture keys work again.
    expect((await emu.api("POST", "/extensions", { json: { name: "Fresh" } })).status).toBe(201);
    expect((await emu.api("GET", "/extensions")).body.extensions.map((e: { name: string }) => e.name)).toEqual([
      "Fresh",
    ]);
  });
});

describe("POST /_emulator/seed", () => {
  test("loads a fixture, reports what it created and returns generated keys once; a second load changes nothing", async () => {
    const fixture = {
      accounts: [
        {
          id: "acc_seeded",
          name: "Seeded",
          apiKeys: [{ name: "ci", scopes: ["extensions:read"] }],
          extensions: [{ name: "Seeded Ext" }],
        },
      ],
    };
    const first = await emu.admin("POST", "/seed", fixture);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ accountsCreated: 1, extensionsCreated: 1 });
    const key = first.body.keys[0].key as string;
    expect(key).toMatch(/^ext_/);
    const listed = await emu.api("GET", "/extensions", { key });
    expect(listed.body.extensions.map((e: { name: string }) => e.name)).toEqual(["Seeded Ext"]);
    const second = await emu.admin("POST", "/seed", fixture);
    expect(second.body).toEqual({
      accountsCreated: 0,
      extensionsCreated: 0,
      keys: [{ accountId: "acc_seeded", name: "ci", created: false }],
    });
  });

  test("an invalid fixture is a 422 with one detail per bad field, and nothing is loaded", async () => {
    const res = await emu.admin("POST", "/seed", { accounts: [{ id: "bad id!", name: "" }] });
    const error = expectEnvelope(res, 422, "validation_error");
    const fields = error.details!.map((d) => d.field);
    // The same paths and words as `ext seed` prints for the same fixture (test/fixtures/messages.test.ts).
    expect(fields).toEqual(["accounts[0].id", "accounts[0].name"]);
    // The message names the first bad field, so a client that shows only the message still says where.
    expect(error.message).toStartWith("Fixture failed validation: accounts[0].id: ");
    expect(error.details![1]!.message).toBe("must not be empty");
    const noScopes = await emu.admin("POST", "/seed", {
      accounts: [{ id: "acc_x", name: "X", apiKeys: [{ name: "ci" }], overrides: { max_api_keys: -1 } }],
    });
    expect(expectEnvelope(noScopes, 422, "validation_error").details).toEqual([
      {
        field: "accounts[0].apiKeys[0].scopes",
        message: '`scopes` is required: list the scopes of this key, e.g. ["*"]',
      },
      { field: "accounts[0].overrides.max_api_keys", message: "must be a whole number, 0 or more" },
    ]);
    const unknownLimit = await emu.admin("POST", "/seed", {
      accounts: [{ id: "acc_x", name: "X", overrides: { max_bananas: 3 } }],
    });
    expect(expectEnvelope(unknownLimit, 422, "validation_error").details).toEqual([
      {
        field: "accounts[0].overrides.max_bananas",
        message: expect.stringContaining("max_bananas is not a known limit key"),
      },
    ]);
    expect((await emu.admin("GET", "/state")).body.counts.accounts).toBe(3);
  });

  test("a body that is not JSON is refused (415 for another type, 422 for malformed JSON)", async () => {
    expectEnvelope(
      await emu.admin("POST", "/seed", undefined, { body: "accounts: []", headers: { "content-type": "text/yaml" } }),
      415,
      "unsupported_media_type",
    );
    expectEnvelope(
      await emu.admin("POST", "/seed", undefined, { body: "{", headers: { "content-type": "application/json" } }),
      422,
      "validation_error",
    );
  });
});

describe("GET /_emulator/state", () => {
  test("counts follow the resources", async () => {
    await emu.admin("POST", "/reset");
    const id = await createExtension(emu, "Counted");
    await emu.api("PUT", `/extensions/${id}/secrets/A`, { json: { value: "1" } });
    await emu.api("PUT", `/extensions/${id}/secrets/B`, { json: { value: "2" } });
    const state = (await emu.admin("GET", "/state")).body;
    expect(state.counts).toMatchObject({ accounts: 2, extensions: 1, secrets: 2, versions: 0 });
    expect(state.rateLimits).toBe(true);
  });
});
