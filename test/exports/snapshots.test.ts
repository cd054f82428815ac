/** snapshot() / restore(): rows, bundle files and the clock, in process (Bun helper) and on the control plane. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type Emulator, startEmulator } from "../../src/programmatic";
import { bundleDir, createExtension, submitVersion } from "../helpers/bundles";
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
    expect((await submitVersion(emu, id, { version: "1.0.0", bundle: await bundles.make() })).status).toBe(202);
    expect(
      (await emu.api("PUT", `/extensions/${id}/secrets/TOKEN`, { json: { value: "snapshot-value" } })).status,
    ).toBe(204);
    await emu.admin("POST", "/clock", { set: "2030-01-01T00:00:00.000Z", freeze: true });
    const versions = (await emu.api("GET", `/extensions/${id}/versions`)).text;
    const files = blobDigests(emu);
    expect(files).toHaveLength(1);
    const taken = await emu.admin("POST", "/snapshots");
    expect(taken.status).toBe(201);
    const snap = taken.body.snapshot.id;

    expect((await emu.api("DELETE", `/extensions/${id}`)).status).toBe(204);
    expect(blobDigests(emu)).toEqual([]);
    await createExtension(emu, "Later");
    await emu.admin("POST", "/clock", { mode: "real" });

    expect((await emu.admin("POST", `/snapshots/${snap}/restore`)).status).toBe(204);
    expect((await emu.api("GET", `/extensions/${id}/versions`)).text).toBe(versions);
    expect((await emu.api("GET", `/extensions/${id}/secrets`)).body.keys).toEqual(["TOKEN"]);
    expect((await emu.api("GET", "/extensions")).body.extensions.map((x: { name: string }) => x.name)).toEqual([
      "Snapshotted",
    ]);
    expect(blobDigests(emu)).toEqual(files);
    expect((await emu.admin("GET", "/clock")).body).toMatchObject({ now: "2030-01-01T00:00:00.000Z", mode: "frozen" });

    expect((await emu.admin("DELETE", `/snapshots/${snap}`)).status).toBe(204);
    expectEnvelope(await emu.admin("POST", `/snapshots/${snap}/restore`), 404, "snapshot_not_found");
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
