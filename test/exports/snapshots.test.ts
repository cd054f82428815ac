/** snapshot() / restore(): rows, bundle files and the clock, in process (Bun helper) and on the control plane. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type Emulator, startEmulator } from "../../tools/helper/start-emulator";
import { bundleDir, createExtension, uploadVersion } from "../helpers/bundles";
import { expectEnvelope, startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";

const bundles = bundleDir();
let emu: TestEmulator;
afterAll(() => bundles.cleanup());

const blobDigests = (e: TestEmulator) => {
  const dir = join(e.dataDir, "blobs", "objects");
  return readdirSync(dir)
    .map(
      (f) =>
        `${f}:${createHash("sha256")
          .update(readFileSync(join(dir, f)))
          .digest("hex")}`,
    )
    .sort();
};

describe("control plane snapshots", () => {
  beforeAll(async () => {
    emu = await startTestEmulator();
  });
  afterAll(() => stopTestEmulator(emu));

  test("a restore brings back rows, bundle files and clock; deleted extensions and their bundles too", async () => {
    const id = await createExtension(emu, "Snapshotted");
    const byId = { params: { path: { id } } };
    const versionsText = async () =>
      JSON.stringify((await emu.client.GET("/developer/v1/extensions/{id}/versions", byId)).data);
    expect((await uploadVersion(emu, id, { version: "1.0.0", bundle: await bundles.make() })).response.status).toBe(
      202,
    );
    const put = await emu.client.PUT("/developer/v1/extensions/{id}/secrets/{key}", {
      params: { path: { id, key: "TOKEN" } },
      body: { value: "snapshot-value" },
    });
    expect(put.response.status).toBe(204);
    await emu.control.POST("/_emulator/clock", { body: { set: "2030-01-01T00:00:00.000Z", freeze: true } });
    const versions = await versionsText();
    const files = blobDigests(emu);
    expect(files).toHaveLength(1);
    const taken = await emu.control.POST("/_emulator/snapshots");
    expect(taken.response.status).toBe(201);
    const snap = { params: { path: { id: taken.data?.snapshot.id ?? "" } } };

    expect((await emu.client.DELETE("/developer/v1/extensions/{id}", byId)).response.status).toBe(204);
    expect(blobDigests(emu)).toEqual([]);
    await createExtension(emu, "Later");
    await emu.control.POST("/_emulator/clock", { body: { mode: "real" } });

    expect((await emu.control.POST("/_emulator/snapshots/{id}/restore", snap)).response.status).toBe(204);
    expect(await versionsText()).toBe(versions);
    expect((await emu.client.GET("/developer/v1/extensions/{id}/secrets", byId)).data?.keys).toEqual(["TOKEN"]);
    expect((await emu.client.GET("/developer/v1/extensions")).data?.extensions.map((x) => x.name)).toEqual([
      "Snapshotted",
    ]);
    expect(blobDigests(emu)).toEqual(files);
    expect((await emu.control.GET("/_emulator/clock")).data).toMatchObject({
      now: "2030-01-01T00:00:00.000Z",
      mode: "frozen",
    });

    expect((await emu.control.DELETE("/_emulator/snapshots/{id}", snap)).response.status).toBe(204);
    expectEnvelope(await emu.control.POST("/_emulator/snapshots/{id}/restore", snap), 404, "snapshot_not_found");
  });
});

describe("the Bun helper", () => {
  let bun: Emulator;
  beforeAll(async () => {
    bun = await startEmulator({ rateLimits: false });
  });
  afterAll(() => bun.stop());

  test("snapshot() then restore(): the same reads, as often as asked", async () => {
    await bun.createExtension({ name: "Kept" });
    const read = async () =>
      (await fetch(`${bun.baseUrl}/extensions`, { headers: { authorization: `Bearer ${bun.apiKey}` } })).text();
    const at = await read();
    const snap = await bun.snapshot();
    for (let i = 0; i < 3; i++) {
      await bun.createExtension({ name: `Dropped ${i}` });
      expect(await read()).not.toBe(at);
      await bun.restore(snap);
      expect(await read()).toBe(at);
    }
  });
});
