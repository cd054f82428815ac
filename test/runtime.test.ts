/**
 * Storage and start-up: a restart on the same data directory keeps everything, memory mode leaves nothing
 * on disk, and the start-up sweep removes upload leftovers (temp files, unreferenced bundle files).
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { parseServerConfig } from "../server/base/config";
import { newId } from "../server/base/ids";
import { memoryDirPrefix } from "../server/data-dir/lock";
import { versions } from "../server/db/schema";
import { createRuntime } from "../server/runtime/runtime";
import { createExtension } from "./helpers/bundles";
import { startTestEmulator, stopTestEmulator, type TestEmulator } from "./helpers/emulator";

function addVersionWithBlob(emu: TestEmulator, extensionId: string): string {
  const { blobs, db, clock } = emu.runtime;
  const blobId = newId("blob", clock.nowMs());
  const temp = blobs.tempPath();
  writeFileSync(temp, "a real bundle would be here");
  blobs.commit(temp, blobId);
  db.insert(versions)
    .values({
      id: newId("ver", clock.nowMs()),
      extensionId,
      seq: 1,
      version: "1.0.0",
      bundleBlobId: blobId,
      bundleSizeBytes: 27,
      bundleSha256: "x",
      submittedAt: clock.iso(),
    })
    .run();
  return blobId;
}

describe("restart on the same data directory", () => {
  test("keeps accounts, keys, extensions, edits and bundle files", async () => {
    const first = await startTestEmulator();
    const dataDir = first.dataDir;
    let second: TestEmulator | undefined;
    try {
      const created = await first.client.POST("/developer/v1/extensions", {
        body: { name: "Survivor", description: "kept" },
      });
      const id = created.data?.extension.id ?? "";
      const byId = { params: { path: { id } } };
      await first.client.PATCH("/developer/v1/extensions/{id}", { ...byId, body: { visibility: "unlisted" } });
      const blobId = addVersionWithBlob(first, id);
      const before = (await first.client.GET("/developer/v1/extensions/{id}", byId)).data;
      const listBefore = (await first.client.GET("/developer/v1/extensions")).data;
      await first.stop();
      expect(existsSync(join(dataDir, "ext.sqlite"))).toBe(true);

      // No fixture this time: the account and its key must come from the file itself.
      second = await startTestEmulator({ dataDir, fixture: null });
      expect((await second.client.GET("/developer/v1/extensions/{id}", byId)).data).toEqual(before);
      expect((await second.client.GET("/developer/v1/extensions")).data).toEqual(listBefore);
      expect(before).toMatchObject({ name: "Survivor", description: "kept", visibility: "unlisted" });
      expect(second.runtime.blobs.exists(blobId)).toBe(true);
    } finally {
      await first.stop();
      await stopTestEmulator(second);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe("memory mode", () => {
  test("creates no data directory and removes its temporary blob directory on stop", async () => {
    const parent = mkdtempSync(join(tmpdir(), "ext-memtest-"));
    const dataDir = join(parent, "must-not-exist");
    const emu = await startTestEmulator({ dataDir, config: { memory: true } });
    try {
      const created = await emu.client.POST("/developer/v1/extensions", { body: { name: "Ephemeral" } });
      expect(created.response.status).toBe(201);
      addVersionWithBlob(emu, created.data?.extension.id ?? "");
      const blobRoot = emu.runtime.blobs.root;
      expect(existsSync(blobRoot)).toBe(true);
      expect(blobRoot.startsWith(parent)).toBe(false);
      expect(existsSync(dataDir)).toBe(false);

      await emu.stop();
      expect(existsSync(blobRoot)).toBe(false);
      expect(existsSync(dirname(blobRoot))).toBe(false);
      expect(existsSync(dataDir)).toBe(false);
      expect(readdirSync(parent)).toEqual([]);
    } finally {
      await emu.stop();
      rmSync(parent, { recursive: true, force: true });
    }
  });

  test("a second memory emulator starts empty", async () => {
    const a = await startTestEmulator({ config: { memory: true } });
    const b = await startTestEmulator({ config: { memory: true } });
    try {
      await a.client.POST("/developer/v1/extensions", { body: { name: "Only In A" } });
      expect((await b.client.GET("/developer/v1/extensions")).data).toEqual({ extensions: [] });
    } finally {
      await stopTestEmulator(a);
      await stopTestEmulator(b);
    }
  });
});

describe("start-up sweep", () => {
  test("removes temp files and bundle files no version points to; keeps referenced ones", async () => {
    const first = await startTestEmulator();
    const dataDir = first.dataDir;
    let second: TestEmulator | undefined;
    try {
      const id = await createExtension(first, "Has Bundle");
      const kept = addVersionWithBlob(first, id);
      const { objectsDir, tmpDir } = first.runtime.blobs;
      await first.stop();

      const stray = newId("blob", Date.parse("2026-01-01T00:00:00Z"));
      writeFileSync(join(objectsDir, stray), "left by a crash between rename and insert");
      writeFileSync(join(tmpDir, "upload-123-abc-0"), "half an upload");
      const notABlob = join(objectsDir, "README");
      writeFileSync(notABlob, "not ours to judge");

      second = await startTestEmulator({ dataDir, fixture: null });
      expect(readdirSync(tmpDir)).toEqual([]);
      expect(existsSync(join(objectsDir, stray))).toBe(false);
      expect(second.runtime.blobs.exists(kept)).toBe(true);
      expect(existsSync(notABlob)).toBe(true);
    } finally {
      await first.stop();
      await stopTestEmulator(second);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe("start-up fixture given as an object", () => {
  test("gets the file fixture's checks, and a refusal leaves no temp directory behind", () => {
    const memoryDirs = () =>
      readdirSync(dirname(memoryDirPrefix())).filter((f) =>
        f.startsWith(`${basename(memoryDirPrefix())}${process.pid}-`),
      ).length;
    const before = memoryDirs();
    const fixture = { accounts: [{ id: "acc_x", name: "X", overrides: { max_versions_per_extension: 900 } }] };
    const config = { ...parseServerConfig({ memory: true, logLevel: "silent" }, {}) };
    expect(() => createRuntime(config, { seedFixture: fixture })).toThrow(
      /accounts\[0\]\.overrides\.max_versions_per_extension: max_versions_per_extension cannot exceed its hard limit of 500 \(got 900\)/,
    );
    // Valid in form, refused while applying (26 extensions, over the cap): the runtime closes what it opened.
    const tooMany = {
      accounts: [{ id: "acc_y", name: "Y", extensions: Array.from({ length: 26 }, (_, i) => ({ name: `Ext ${i}` })) }],
    };
    expect(() => createRuntime(config, { seedFixture: tooMany })).toThrow(/at most 25 extensions/);
    expect(memoryDirs()).toBe(before);
  });
});

describe("a data directory the runtime creates", () => {
  test("gets a .gitignore of `*` (a programmatic start too); one that existed does not; ext.pid goes at close", () => {
    const parent = mkdtempSync(join(tmpdir(), "ext-ignore-"));
    try {
      const fresh = join(parent, "nested", ".ext-data");
      const runtime = createRuntime(parseServerConfig({ dataDir: fresh, logLevel: "silent" }, {}));
      expect(readFileSync(join(fresh, ".gitignore"), "utf8")).toBe("*\n");
      expect(existsSync(join(fresh, "ext.pid"))).toBe(true);
      runtime.close();
      expect(existsSync(join(fresh, "ext.pid"))).toBe(false);
      createRuntime(parseServerConfig({ dataDir: parent, logLevel: "silent" }, {})).close();
      expect(existsSync(join(parent, ".gitignore"))).toBe(false);
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });
});
