/**
 * Install statistics: the developer endpoint, and the installs and uninstalls the control plane records
 * (POST /_emulator/extensions/:id/installs|uninstalls), all over a real socket. Approved versions are
 * inserted as rows directly, so these tests do not depend on the versions API.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { accountOverrides, extensionOverrides } from "../../server/db/schema";
import {
  DEMO_KEY,
  expectEnvelope,
  OTHER_KEY,
  READ_KEY,
  startTestEmulator,
  stopTestEmulator,
  type TestEmulator,
} from "../helpers/emulator";
import { newExtension as createExtension, addVersion as insertVersion, installCalls, ok } from "./version-rows";

let emu: TestEmulator;

beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => stopTestEmulator(emu));

const newExtension = (name: string) => createExtension(emu, name);
const addVersion = (extensionId: string, label: string, opts?: Parameters<typeof insertVersion>[3]) =>
  insertVersion(emu, extensionId, label, opts);

/** POST /_emulator/extensions/:id/installs (or /uninstalls), as the end users' side of the platform. */
const { install, uninstall, stats, extension, listed, advanceClock } = installCalls(() => emu);

const installsOf = (id: string, key: string | null = DEMO_KEY) =>
  emu.clientFor(key).GET("/developer/v1/extensions/{id}/installs", { params: { path: { id } } });

describe("GET /extensions/:id/installs", () => {
  test("a new extension has no installs", async () => {
    const id = await newExtension("No Installs");
    expect(await stats(id)).toEqual({ total: 0, active: 0, byVersion: {} });
  });

  test("statistics add up across two versions after installs and uninstalls; installCount equals total", async () => {
    const id = await newExtension("Two Versions");
    const v1 = addVersion(id, "1.0.0", { current: true });
    await ok(install(id, { count: 5 })); // current version by default
    const v2 = addVersion(id, "2.0.0", { current: true });
    await ok(install(id));
    await ok(install(id, { versionId: v2, count: 3 }));
    await ok(install(id, { versionId: v1 }));
    await ok(uninstall(id, { versionId: v1, count: 2 }));
    const returned = await ok(uninstall(id, { versionId: v2 }));

    const body = await stats(id);
    expect(body).toEqual({ total: 10, active: 7, byVersion: { [v1]: 4, [v2]: 3 } });
    expect(returned).toEqual(body);
    expect(Object.values(body.byVersion).reduce((a, b) => a + b, 0)).toBe(body.active);
    expect(Object.keys(body).sort()).toEqual(["active", "byVersion", "total"]);

    expect((await extension(id)).installCount).toBe(10);
    expect((await listed(id))?.installCount).toBe(10);
  });

  test("a version whose installs are all uninstalled leaves byVersion; the total keeps them", async () => {
    const id = await newExtension("All Gone");
    const v = addVersion(id, "1.0.0", { current: true });
    expect(await ok(install(id, { count: 2 }))).toEqual({ total: 2, active: 2, byVersion: { [v]: 2 } });
    expect(await ok(uninstall(id, { count: 2 }))).toEqual({ total: 2, active: 0, byVersion: {} });
    expect(await stats(id)).toEqual({ total: 2, active: 0, byVersion: {} });
  });

  test("a read-only key may read them; another account's extension is a 404", async () => {
    const id = await newExtension("Read Installs");
    expect(await stats(id, READ_KEY)).toEqual({ total: 0, active: 0, byVersion: {} });
    expectEnvelope(await installsOf(id, OTHER_KEY), 404, "extension_not_found");
    expectEnvelope(await installsOf("ext_missing"), 404, "extension_not_found");
    expectEnvelope(await installsOf(id, null), 401, "unauthorized");
  });
});

describe("POST /_emulator/extensions/:id/installs", () => {
  test("only approved versions of this extension can be installed", async () => {
    const id = await newExtension("Install Rules");
    const other = await newExtension("Someone Else's Version");
    expectEnvelope(await install(id), 409, "no_current_version");
    const pending = addVersion(id, "0.1.0", { status: "pending" });
    expectEnvelope(await install(id, { versionId: pending }), 409, "version_not_installable");
    const foreign = addVersion(other, "9.9.9", { current: true });
    expectEnvelope(await install(id, { versionId: foreign }), 404, "version_not_found");
    expectEnvelope(await install("ext_missing"), 404, "extension_not_found");
    expect(await stats(id)).toEqual({ total: 0, active: 0, byVersion: {} });
  });

  test("count is an integer from 1 to 100,000,000", async () => {
    const id = await newExtension("Install Counts");
    addVersion(id, "1.0.0", { current: true });
    for (const count of [0, -1, 1.5, 100_000_001])
      expectEnvelope(await install(id, { count }), 422, "validation_error");
    expect((await ok(install(id, { count: 100_000_000 }))).active).toBe(100_000_000);
  });

  test("the install-time re-check refuses a version whose sounds no longer fit the resolved limit", async () => {
    const id = await newExtension("Too Many Sounds Now");
    const v = addVersion(id, "1.0.0", { soundCount: 30, current: true });
    expect((await ok(install(id))).active).toBe(1); // 30 fits the default 50

    // An admin lowers the per-extension limit after the upload was accepted.
    const now = emu.clock.iso();
    emu.runtime.db.write((tx) =>
      tx
        .insert(extensionOverrides)
        .values({ extensionId: id, limitKey: "max_sounds_per_extension", value: 20, updatedAt: now })
        .run(),
    );
    const err = expectEnvelope(await install(id, { versionId: v, count: 3 }), 422, "limit_exceeded");
    expect(err.message).toContain("Install-time re-check");
    expect(err.details?.[0]).toMatchObject({ limit: "max_sounds_per_extension", max: 20, current: 30 });
    expect(await stats(id)).toEqual({ total: 1, active: 1, byVersion: { [v]: 1 } });
  });

  test("the re-check resolves in the spec's priority: the extension override beats the developer override", async () => {
    const id = await newExtension("Priority Sounds");
    addVersion(id, "1.0.0", { soundCount: 30, current: true });
    const now = emu.clock.iso();
    emu.runtime.db.write((tx) =>
      tx
        .insert(accountOverrides)
        .values({ accountId: "acc_test", limitKey: "max_sounds_per_extension", value: 10, updatedAt: now })
        .run(),
    );
    try {
      expect(expectEnvelope(await install(id), 422, "limit_exceeded").details?.[0]).toMatchObject({
        max: 10,
        current: 30,
      });
      emu.runtime.db.write((tx) =>
        tx
          .insert(extensionOverrides)
          .values({ extensionId: id, limitKey: "max_sounds_per_extension", value: 40, updatedAt: now })
          .run(),
      );
      expect((await ok(install(id))).active).toBe(1);
    } finally {
      const { db } = emu.runtime;
      db.write(() => db.$client.prepare("DELETE FROM account_overrides WHERE account_id = 'acc_test'").run());
    }
  });
});

describe("POST /_emulator/extensions/:id/uninstalls", () => {
  test("refuses to uninstall more than are active, changing nothing", async () => {
    const id = await newExtension("Uninstall Rules");
    const v1 = addVersion(id, "1.0.0", { current: true });
    const v2 = addVersion(id, "2.0.0");
    await ok(install(id, { count: 2 }));
    const before = await stats(id);
    expectEnvelope(await uninstall(id, { count: 3 }), 409, "not_enough_installs");
    expectEnvelope(await uninstall(id, { versionId: v2 }), 409, "not_enough_installs");
    expectEnvelope(await uninstall(id, { versionId: "ver_nope" }), 404, "version_not_found");
    expect(await stats(id)).toEqual(before);
    expect(await ok(uninstall(id))).toEqual({ total: 2, active: 1, byVersion: { [v1]: 1 } });
  });

  test("without a versionId, the oldest active installs go first, whatever their version", async () => {
    const id = await newExtension("Oldest First");
    const v1 = addVersion(id, "1.0.0");
    const v2 = addVersion(id, "2.0.0", { current: true });
    // v2 is installed first, v1 twice a minute later: the oldest is the v2 install.
    await ok(install(id, { versionId: v2 }));
    await advanceClock(60);
    await ok(install(id, { versionId: v1, count: 2 }));
    expect(await ok(uninstall(id))).toEqual({ total: 3, active: 2, byVersion: { [v1]: 2 } });
    expect(await ok(uninstall(id))).toEqual({ total: 3, active: 1, byVersion: { [v1]: 1 } });
  });
});
