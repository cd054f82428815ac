/** POST /_emulator/reset, POST /_emulator/seed, GET /_emulator/state. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { bundleDir, createExtension, uploadVersion } from "../helpers/bundles";
import {
  expectEnvelope,
  jsonAt,
  type RequestOptions,
  startTestEmulator,
  stopTestEmulator,
  type TestEmulator,
} from "../helpers/emulator";

let emu: TestEmulator;
const bundles = bundleDir();

beforeAll(async () => {
  emu = await startTestEmulator({ config: { rateLimits: true } });
});
afterAll(async () => {
  await stopTestEmulator(emu);
  bundles.cleanup();
});

const reset = () => emu.control.POST("/_emulator/reset");
const state = async () => (await emu.control.GET("/_emulator/state")).data;
const create = (name: string) => emu.client.POST("/developer/v1/extensions", { body: { name } });
const putSecret = (id: string, key: string, value: string) =>
  emu.client.PUT("/developer/v1/extensions/{id}/secrets/{key}", { params: { path: { id, key } }, body: { value } });
/**
 * Raw: the document types the seed's body by the model of what it answers (every defaulted field required),
 * so fixtures that lean on defaults, or are broken on purpose, are not expressible through the typed client.
 */
const seed = (opts: RequestOptions) =>
  emu.rawRequest("POST", "/_emulator/seed", { key: emu.runtime.control.adminToken, ...opts });

describe("POST /_emulator/reset", () => {
  test("clears the rate-limit windows (without moving the clock)", async () => {
    await reset();
    for (let i = 0; i < 10; i++) expect((await create(`Window ${i}`)).response.status).toBe(201);
    expectEnvelope(await create("Eleventh"), 429, "rate_limited");
    expect((await reset()).response.status).toBe(200);
    const after = await create("After Reset");
    expect(after.response.status).toBe(201);
    expect(after.response.headers.get("x-ratelimit-remaining")).toBe("9");
    await reset();
  });

  test("a reset between two tests leaves no trace: rows, bundle files, rate windows, faults, request log, clock", async () => {
    // The first "test" leaves everything behind it can, starting a month from now.
    const moved = await emu.control.POST("/_emulator/clock", { body: { advanceSeconds: 86_400 * 30 } });
    expect(moved.response.status).toBe(200);
    const id = await createExtension(emu, "Leftover");
    expect((await uploadVersion(emu, id, { version: "1.0.0", bundle: await bundles.make() })).response.status).toBe(
      202,
    );
    expect((await putSecret(id, "TOKEN", "s3cret")).response.status).toBe(204);
    const member = await emu.control.POST("/_emulator/accounts/{accountId}/members", {
      params: { path: { accountId: "acc_test" } },
      body: { email: "dev@example.com", role: "developer" },
    });
    expect(member.response.status).toBe(201);
    const override = await emu.control.PUT("/_emulator/overrides/accounts/{id}", {
      params: { path: { id: "acc_test" } },
      body: { max_sounds_per_extension: 80 },
    });
    expect(override.response.status).toBe(200);
    const fault = await emu.control.POST("/_emulator/faults", { body: { path: "/nothing-matches", status: 503 } });
    expect(fault.response.status).toBe(201);
    const before = await state();
    expect(before?.counts).toMatchObject({
      extensions: 1,
      versions: 1,
      secrets: 1,
      teamMembers: 1,
      accountOverrides: 1,
      bundleFiles: 1,
    });
    expect(before?.faults).toBe(1);
    expect(before?.requestsLogged).toBeGreaterThan(0);
    expect(before?.clock.offsetMs).toBeGreaterThan(86_400_000 * 29);
    expect(readdirSync(join(emu.dataDir, "blobs", "objects"))).toHaveLength(1);
    // Nine creates left in this hour's window (one used above) ...
    for (let i = 0; i < 9; i++) expect((await create(`Fill ${i}`)).response.status).toBe(201);
    expectEnvelope(await create("Over"), 429, "rate_limited");

    const res = await reset();
    expect(res.response.status).toBe(200);
    expect(res.data?.reset).toBe(true);
    expect(res.data?.seed?.accountsCreated).toBe(2);

    const after = await state();
    expect(after?.counts).toEqual({
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
    expect(after?.faults).toBe(0);
    expect(after?.requestsLogged).toBe(0);
    expect(after?.clock.mode).toBe("real");
    expect(Math.abs(after?.clock.offsetMs ?? Number.NaN)).toBeLessThan(1000);
    expect(readdirSync(join(emu.dataDir, "blobs", "objects"))).toEqual([]);
    // The rate window is gone too: a create goes through at once, and the fixture keys work again.
    expect((await create("Fresh")).response.status).toBe(201);
    expect((await emu.client.GET("/developer/v1/extensions")).data?.extensions.map((e) => e.name)).toEqual(["Fresh"]);
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
    const first = await seed({ json: fixture });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ accountsCreated: 1, extensionsCreated: 1 });
    const key = String(jsonAt(first.body, "keys", 0, "key"));
    expect(key).toMatch(/^ext_/);
    const listed = await emu.clientFor(key).GET("/developer/v1/extensions");
    expect(listed.data?.extensions.map((e) => e.name)).toEqual(["Seeded Ext"]);
    const second = await seed({ json: fixture });
    expect(second.body).toEqual({
      accountsCreated: 0,
      extensionsCreated: 0,
      keys: [{ accountId: "acc_seeded", name: "ci", created: false }],
    });
  });

  test("an invalid fixture is a 422 with one detail per bad field, and nothing is loaded", async () => {
    const res = await seed({ json: { accounts: [{ id: "bad id!", name: "" }] } });
    const error = expectEnvelope(res, 422, "validation_error");
    const fields = error.details!.map((d) => d.field);
    // The same paths and words as `ext seed` prints for the same fixture (test/fixtures/messages.test.ts).
    expect(fields).toEqual(["accounts[0].id", "accounts[0].name"]);
    // The message names the first bad field, so a client that shows only the message still says where.
    expect(error.message).toStartWith("Fixture failed validation: accounts[0].id: ");
    expect(error.details![1]!.message).toBe("must not be empty");
    const noScopes = await seed({
      json: { accounts: [{ id: "acc_x", name: "X", apiKeys: [{ name: "ci" }], overrides: { max_api_keys: -1 } }] },
    });
    expect(expectEnvelope(noScopes, 422, "validation_error").details).toEqual([
      {
        field: "accounts[0].apiKeys[0].scopes",
        message: '`scopes` is required: list the scopes of this key, e.g. ["*"]',
      },
      { field: "accounts[0].overrides.max_api_keys", message: "must be a whole number, 0 or more" },
    ]);
    const unknownLimit = await seed({
      json: { accounts: [{ id: "acc_x", name: "X", overrides: { max_bananas: 3 } }] },
    });
    expect(expectEnvelope(unknownLimit, 422, "validation_error").details).toEqual([
      {
        field: "accounts[0].overrides.max_bananas",
        message: expect.stringContaining("max_bananas is not a known limit key"),
      },
    ]);
    expect((await state())?.counts.accounts).toBe(3);
  });

  test("a body that is not JSON is refused (415 for another type, 422 for malformed JSON)", async () => {
    expectEnvelope(
      await seed({ body: "accounts: []", headers: { "content-type": "text/yaml" } }),
      415,
      "unsupported_media_type",
    );
    expectEnvelope(await seed({ body: "{", headers: { "content-type": "application/json" } }), 422, "validation_error");
  });
});

describe("GET /_emulator/state", () => {
  test("counts follow the resources", async () => {
    await reset();
    const id = await createExtension(emu, "Counted");
    await putSecret(id, "A", "1");
    await putSecret(id, "B", "2");
    const counted = await state();
    expect(counted?.counts).toMatchObject({ accounts: 2, extensions: 1, secrets: 2, versions: 0 });
    expect(counted?.rateLimits).toBe(true);
  });
});
