/**
 * Install statistics at marketplace scale: any count is recorded in one call as counters (one row per
 * version, whatever the count), rollouts move active installs between versions without changing the total,
 * and uninstalls without a version come off the versions installed first. Over a real socket.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { installCounters, versions } from "../../server/db/schema";
import { expectEnvelope, startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";
import { newExtension as createExtension, addVersion as insertVersion, installCalls, ok } from "./version-rows";

let emu: TestEmulator;

beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => stopTestEmulator(emu));

const newExtension = (name: string) => createExtension(emu, name);
const addVersion = (extensionId: string, label: string, opts?: Parameters<typeof insertVersion>[3]) =>
  insertVersion(emu, extensionId, label, opts);

const { install, uninstall, rollout, stats, extension, listed, advanceClock } = installCalls(() => emu);
const counterRows = (id: string) =>
  emu.runtime.db.select().from(installCounters).where(eq(installCounters.extensionId, id)).all();

describe("counters", () => {
  test("100,000,000 installs in one call are one row; every read shows them; installCount follows", async () => {
    const id = await newExtension("Hit Extension");
    const v1 = addVersion(id, "1.0.0");
    const v2 = addVersion(id, "2.0.0", { current: true });
    expect(await ok(install(id, { versionId: v1, count: 100_000_000 }))).toEqual({
      total: 100_000_000,
      active: 100_000_000,
      byVersion: { [v1]: 100_000_000 },
    });
    await ok(install(id, { count: 100_000_000 }));
    await ok(uninstall(id, { versionId: v2, count: 25_000_000 }));
    expect(await stats(id)).toEqual({
      total: 200_000_000,
      active: 175_000_000,
      byVersion: { [v1]: 100_000_000, [v2]: 75_000_000 },
    });
    expect(counterRows(id)).toHaveLength(2);
    expect((await extension(id)).installCount).toBe(200_000_000);
    expect((await listed(id))?.installCount).toBe(200_000_000);
    const state = await ok(emu.control.GET("/_emulator/state"));
    expect(state.counts.installs).toBeGreaterThanOrEqual(200_000_000);
    expect(state.counts.activeInstalls).toBeGreaterThanOrEqual(175_000_000);
  });

  test("uninstalls without a version come off the versions installed first, spreading over several", async () => {
    const id = await newExtension("Spread Uninstalls");
    const v1 = addVersion(id, "1.0.0");
    const v2 = addVersion(id, "2.0.0");
    const v3 = addVersion(id, "3.0.0", { current: true });
    await ok(install(id, { versionId: v2, count: 30 }));
    await advanceClock(60);
    await ok(install(id, { versionId: v1, count: 20 }));
    await advanceClock(60);
    await ok(install(id, { versionId: v3, count: 10 }));
    // v2 was installed first, then v1: 45 uninstalls take all 30 of v2 and 15 of v1.
    expect(await ok(uninstall(id, { count: 45 }))).toEqual({
      total: 60,
      active: 15,
      byVersion: { [v1]: 5, [v3]: 10 },
    });
  });

  test("an extension records at most 10^12 installs in all; nothing changes past it", async () => {
    const id = await newExtension("Capped Installs");
    addVersion(id, "1.0.0", { current: true });
    const v = emu.runtime.db.select().from(versions).where(eq(versions.extensionId, id)).get()!.id;
    emu.runtime.db.write((tx) =>
      tx
        .insert(installCounters)
        .values({
          extensionId: id,
          versionId: v,
          installed: 999_999_999_999,
          active: 1,
          firstInstalledAt: emu.clock.iso(),
        })
        .run(),
    );
    const before = await stats(id);
    expectEnvelope(await install(id, { count: 2 }), 422, "validation_error");
    expect(await stats(id)).toEqual(before);
    expect((await ok(install(id, { count: 1 }))).total).toBe(1_000_000_000_000);
  });
});

describe("POST /_emulator/extensions/:id/rollouts", () => {
  test("moves active installs from one version to another; total stays, byVersion follows", async () => {
    const id = await newExtension("Rollout");
    const v1 = addVersion(id, "1.0.0");
    const v2 = addVersion(id, "2.0.0", { current: true });
    await ok(install(id, { versionId: v1, count: 10_000_000 }));
    expect(await ok(rollout(id, { fromVersionId: v1, toVersionId: v2, count: 4_000_000 }))).toEqual({
      total: 10_000_000,
      active: 10_000_000,
      byVersion: { [v1]: 6_000_000, [v2]: 4_000_000 },
    });
    // Defaults: every other version's installs, onto the current version.
    expect(await ok(rollout(id))).toEqual({
      total: 10_000_000,
      active: 10_000_000,
      byVersion: { [v2]: 10_000_000 },
    });
    expect((await extension(id)).installCount).toBe(10_000_000);
  });

  test("refusals change nothing: too many, same version, unknown or pending target, a target over the sound limit", async () => {
    const id = await newExtension("Rollout Rules");
    const v1 = addVersion(id, "1.0.0", { current: true });
    const pending = addVersion(id, "1.1.0", { status: "pending" });
    const loud = addVersion(id, "2.0.0", { soundCount: 60 });
    await ok(install(id, { count: 5 }));
    const before = await stats(id);
    const reCheck = expectEnvelope(
      await rollout(id, { fromVersionId: v1, toVersionId: loud, count: 1 }),
      422,
      "limit_exceeded",
    );
    expect(reCheck.message).toContain("Install-time re-check");
    const v3 = addVersion(id, "3.0.0");
    expect(
      expectEnvelope(await rollout(id, { fromVersionId: v1, toVersionId: v3, count: 6 }), 409, "not_enough_installs")
        .message,
    ).toBe("Cannot move 6: only 5 active installs match.");
    expectEnvelope(await rollout(id, { fromVersionId: v1, toVersionId: v1 }), 422, "validation_error");
    expectEnvelope(await rollout(id, { fromVersionId: v1, toVersionId: pending }), 409, "version_not_installable");
    expectEnvelope(await rollout(id, { fromVersionId: v1, toVersionId: "ver_nope" }), 404, "version_not_found");
    expectEnvelope(await rollout(id, { fromVersionId: "ver_nope", toVersionId: v3 }), 404, "version_not_found");
    expectEnvelope(await rollout(id, { toVersionId: v3, count: 0 }), 422, "validation_error");
    expectEnvelope(await rollout("ext_missing"), 404, "extension_not_found");
    expect(await stats(id)).toEqual(before);
  });
});
