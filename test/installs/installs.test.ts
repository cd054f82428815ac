/**
 * Install statistics: the developer endpoint over a real socket, and the domain operations the control
 * plane mounts (`recordInstall` / `recordUninstall`) called on the running emulator's services. Approved
 * versions are inserted as rows directly, so these tests do not depend on the versions API.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { extensionOverrides, accountOverrides, versions } from "../../src/db/schema";
import { ApiError } from "../../src/errors/api-error";
import { expectEnvelope, OTHER_KEY, READ_KEY, startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";

let emu: TestEmulator;
let seq = 0;

beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => stopTestEmulator(emu));

const installs = () => emu.runtime.services.installs;

async function newExtension(name: string): Promise<string> {
  const res = await emu.api("POST", "/extensions", { json: { name } });
  expect(res.status).toBe(201);
  return res.body.extension.id;
}

/** A version row as review would leave it; `current` also points the extension at it. */
function addVersion(extensionId: string, label: string, opts: { status?: string; soundCount?: number; current?: boolean } = {}): string {
  const id = `ver_test_${label.replace(/\W/g, "_")}_${++seq}`;
  const now = emu.clock.iso();
  const status = opts.status ?? "approved";
  emu.runtime.db
    .insert(versions)
    .values({
      id,
      extensionId,
      seq,
      version: label,
      status,
      bundleBlobId: `blob_none_${seq}`,
      bundleSizeBytes: 100,
      bundleSha256: "0".repeat(64),
      soundCount: opts.soundCount ?? 0,
      submittedAt: now,
      approvedAt: status === "approved" ? now : null,
    })
    .run();
  if (opts.current) emu.runtime.db.$client.prepare("UPDATE extensions SET current_version_id = ? WHERE id = ?").run(id, extensionId);
  return id;
}

function apiErrorOf(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error("expected an ApiError");
}

const stats = async (id: string, key?: string) => {
  const res = await emu.api("GET", `/extensions/${id}/installs`, { key });
  expect(res.status).toBe(200);
  return res.body;
};

describe("GET /extensions/:id/installs", () => {
  test("a new extension has no installs", async () => {
    const id = await newExtension("No Installs");
    expect(await stats(id)).toEqual({ total: 0, active: 0, byVersion: {} });
  });

  test("statistics add up across two versions after installs and uninstalls; installCount equals total", async () => {
    const id = await newExtension("Two Versions");
    const v1 = addVersion(id, "1.0.0", { current: true });
    installs().recordInstall(id, { count: 5 }); // current version by default
    const v2 = addVersion(id, "2.0.0", { current: true });
    installs().recordInstall(id, {});
    installs().recordInstall(id, { versionId: v2, count: 3 });
    installs().recordInstall(id, { versionId: v1 });
    installs().recordUninstall(id, { versionId: v1, count: 2 });
    const returned = installs().recordUninstall(id, { versionId: v2 });

    const body = await stats(id);
    expect(body).toEqual({ total: 10, active: 7, byVersion: { [v1]: 4, [v2]: 3 } });
    expect(returned).toEqual(body);
    expect(Object.values(body.byVersion as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(body.active);
    expect(Object.keys(body).sort()).toEqual(["active", "byVersion", "total"]);

    expect((await emu.api("GET", `/extensions/${id}`)).body.installCount).toBe(10);
    const listed = (await emu.api("GET", "/extensions")).body.extensions.find((e: { id: string }) => e.id === id);
    expect(listed.installCount).toBe(10);
  });

  test("a version whose installs are all uninstalled leaves byVersion; the total keeps them", async () => {
    const id = await newExtension("All Gone");
    const v = addVersion(id, "1.0.0", { current: true });
    installs().recordInstall(id, { count: 2 });
    installs().recordUninstall(id, { count: 2 });
    expect(await stats(id)).toEqual({ total: 2, active: 0, byVersion: {} });
    expect(installs().stats(id)).toEqual({ total: 2, active: 0, byVersion: {} });
    expect(v).toStartWith("ver_");
  });

  test("a read-only key may read them; another account's extension is a 404", async () => {
    const id = await newExtension("Read Installs");
    expect(await stats(id, READ_KEY)).toEqual({ total: 0, active: 0, byVersion: {} });
    expectEnvelope(await emu.api("GET", `/extensions/${id}/installs`, { key: OTHER_KEY }), 404, "extension_not_found");
    expectEnvelope(await emu.api("GET", "/extensions/ext_missing/installs"), 404, "extension_not_found");
    expectEnvelope(await emu.api("GET", `/extensions/${id}/installs`, { key: null }), 401, "unauthorized");
  });
});

describe("installs.recordInstall", () => {
  test("only approved versions of this extension can be installed", async () => {
    const id = await newExtension("Install Rules");
    const other = await newExtension("Someone Else's Version");
    expect(apiErrorOf(() => installs().recordInstall(id, {})).code).toBe("no_current_version");
    const pending = addVersion(id, "0.1.0", { status: "pending" });
    expect(apiErrorOf(() => installs().recordInstall(id, { versionId: pending })).code).toBe("version_not_installable");
    const foreign = addVersion(other, "9.9.9", { current: true });
    expect(apiErrorOf(() => installs().recordInstall(id, { versionId: foreign })).code).toBe("version_not_found");
    expect(apiErrorOf(() => installs().recordInstall("ext_missing", {})).code).toBe("extension_not_found");
    expect(installs().stats(id)).toEqual({ total: 0, active: 0, byVersion: {} });
  });

  test("count is an integer from 1 to 10000", async () => {
    const id = await newExtension("Install Counts");
    addVersion(id, "1.0.0", { current: true });
    for (const count of [0, -1, 1.5, 10_001]) {
      const err = apiErrorOf(() => installs().recordInstall(id, { count }));
      expect([err.status, err.code]).toEqual([422, "validation_error"]);
    }
    expect(installs().recordInstall(id, { count: 10_000 }).active).toBe(10_000);
  });

  test("the install-time re-check refuses a version whose sounds no longer fit the resolved limit", async () => {
    const id = await newExtension("Too Many Sounds Now");
    const v = addVersion(id, "1.0.0", { soundCount: 30, current: true });
    expect(installs().recordInstall(id, {}).active).toBe(1); // 30 fits the default 50

    // An admin lowers the per-extension limit after the upload was accepted.
    const now = emu.clock.iso();
    emu.runtime.db.insert(extensionOverrides).values({ extensionId: id, limitKey: "max_sounds_per_extension", value: 20, updatedAt: now }).run();
    const err = apiErrorOf(() => installs().recordInstall(id, { versionId: v, count: 3 }));
    expect([err.status, err.code]).toEqual([422, "limit_exceeded"]);
    expect(err.message).toContain("Install-time re-check");
    expect(err.details?.[0]).toMatchObject({ limit: "max_sounds_per_extension", max: 20, current: 30 });
    expect(installs().stats(id)).toEqual({ total: 1, active: 1, byVersion: { [v]: 1 } });
  });

  test("the re-check resolves in the spec's priority: the extension override beats the developer override", async () => {
    const id = await newExtension("Priority Sounds");
    addVersion(id, "1.0.0", { soundCount: 30, current: true });
    const now = emu.clock.iso();
    emu.runtime.db.insert(accountOverrides).values({ accountId: "acc_test", limitKey: "max_sounds_per_extension", value: 10, updatedAt: now }).run();
    try {
      expect(apiErrorOf(() => installs().recordInstall(id, {})).details?.[0]).toMatchObject({ max: 10, current: 30 });
      emu.runtime.db.insert(extensionOverrides).values({ extensionId: id, limitKey: "max_sounds_per_extension", value: 40, updatedAt: now }).run();
      expect(installs().recordInstall(id, {}).active).toBe(1);
    } finally {
      emu.runtime.db.$client.prepare("DELETE FROM account_overrides WHERE account_id = 'acc_test'").run();
    }
  });
});

describe("installs.recordUninstall", () => {
  test("refuses to uninstall more than are active, changing nothing", async () => {
    const id = await newExtension("Uninstall Rules");
    const v1 = addVersion(id, "1.0.0", { current: true });
    const v2 = addVersion(id, "2.0.0");
    installs().recordInstall(id, { count: 2 });
    const before = installs().stats(id);
    expect(apiErrorOf(() => installs().recordUninstall(id, { count: 3 })).code).toBe("not_enough_installs");
    expect(apiErrorOf(() => installs().recordUninstall(id, { versionId: v2 })).code).toBe("not_enough_installs");
    expect(apiErrorOf(() => installs().recordUninstall(id, { versionId: "ver_nope" })).code).toBe("version_not_found");
    expect(installs().stats(id)).toEqual(before);
    expect(installs().recordUninstall(id, {})).toEqual({ total: 2, active: 1, byVersion: { [v1]: 1 } });
  });
});
