/**
 * Every archive of the hostile corpus (scripts/lib/hostile-corpus.ts) uploaded over a real socket: each is a
 * 422 bundle_invalid whose details carry the refusal, the server stays healthy, and nothing is written
 * anywhere: no blob, no temp file, no file outside the data dir.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HOSTILE_CORPUS } from "../../scripts/lib/hostile-corpus";
import { ARCHIVES_TIMEOUT_MS, corpusArchives } from "../helpers/build-cache";
import { createExtension, submitVersion } from "../helpers/bundles";
import { expectEnvelope, startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";

let emu: TestEmulator;
let id: string;
let archives: Map<string, string>;
// The data dir sits alone in a folder of its own: anything else appearing there was written outside it.
const parent = mkdtempSync(join(tmpdir(), "ext-hostile-up-"));
const dir = mkdtempSync(join(tmpdir(), "ext-hostile-archives-"));
beforeAll(async () => {
  archives = await corpusArchives(HOSTILE_CORPUS);
  emu = await startTestEmulator({ dataDir: join(parent, "data") });
  id = await createExtension(emu, "Hostile");
}, ARCHIVES_TIMEOUT_MS);
afterAll(async () => {
  await stopTestEmulator(emu);
  rmSync(parent, { recursive: true, force: true });
  rmSync(dir, { recursive: true, force: true });
});

const listing = (path: string) => readdirSync(path).sort();

describe("the hostile corpus over a real socket", () => {
  for (const c of HOSTILE_CORPUS) {
    test(`${c.file}: 422 bundle_invalid naming the refusal; the server stays healthy; nothing written`, async () => {
      const file = archives.get(c.file)!;
      const checkout = listing(process.cwd());
      const objects = listing(join(emu.dataDir, "blobs", "objects"));
      const err = expectEnvelope(
        await submitVersion(emu, id, { version: "1.0.0", bundle: file }),
        422,
        "bundle_invalid",
      );
      const { path, message } = c.refused!;
      const hit = err.details!.find(
        (d: { path?: string; message: string }) =>
          (typeof path === "string" ? d.path === path : path.test(d.path ?? "")) && message.test(d.message),
      );
      if (!hit)
        throw new Error(
          `expected a detail at ${path} matching ${message}, got ${JSON.stringify(err.details).slice(0, 2000)}`,
        );
      expect((await emu.rawRequest("GET", "/healthz")).status).toBe(200);
      expect(listing(join(emu.dataDir, "blobs", "tmp"))).toEqual([]);
      expect(listing(join(emu.dataDir, "blobs", "objects"))).toEqual(objects);
      expect(listing(parent)).toEqual(["data"]);
      expect(listing(process.cwd())).toEqual(checkout);
    }, 30_000);
  }
  test("no version was created by any of them", async () => {
    const versions = await emu.client.GET("/developer/v1/extensions/{id}/versions", { params: { path: { id } } });
    expect(versions.data?.versions).toEqual([]);
  });
});
