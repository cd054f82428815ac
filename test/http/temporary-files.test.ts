/**
 * A request owns the files it makes for itself (an upload's temporary file, a staged export archive) and
 * removes them before its answer is sent, whatever the answer: when the client reads it, the blob store's
 * tmp/ holds nothing of that request.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Elysia } from "elysia";
import { answers, openRequestContext, temporaryOf } from "../../server/http/request-context";
import { type BundleDir, bundleDir, createExtension, submitVersion, uploadVersion } from "../helpers/bundles";
import { expectEnvelope, startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";

let emu: TestEmulator;
let bundles: BundleDir;
beforeAll(async () => {
  emu = await startTestEmulator({ config: { rateLimits: false } });
  bundles = bundleDir();
});
afterAll(async () => {
  await stopTestEmulator(emu);
  bundles.cleanup();
});

const temporaryFiles = () => readdirSync(emu.runtime.blobs.tmpDir);

async function newExtension(): Promise<string> {
  return createExtension(emu, "Temporary");
}

describe("an upload's temporary file", () => {
  test("is gone when a refusal is answered", async () => {
    const id = await newExtension();
    const invalid = await bundles.make([{ name: "manifest.json", data: "{ not json" }]);
    expectEnvelope(await submitVersion(emu, id, { version: "1.0.0", bundle: invalid }), 422, "bundle_invalid");
    expect(temporaryFiles()).toEqual([]);
    // A form without its version: refused after the bundle was written.
    expectEnvelope(await submitVersion(emu, id, { bundle: await bundles.make() }), 422, "validation_error");
    expect(temporaryFiles()).toEqual([]);
  });

  test("is gone (moved into the blob store) when a submission is accepted", async () => {
    const id = await newExtension();
    const res = await uploadVersion(emu, id, { version: "1.0.0", bundle: await bundles.make() });
    expect(res.response.status).toBe(202);
    expect(temporaryFiles()).toEqual([]);
  });
});

describe("a staged export archive (POST /_emulator/seed)", () => {
  test("is gone when the seed is answered, accepted or refused", async () => {
    const exported = await fetch(`${emu.adminUrl}/export`, {
      headers: { authorization: `Bearer ${emu.runtime.control.adminToken}` },
    });
    expect(exported.status).toBe(200);
    const archive = new Uint8Array(await exported.arrayBuffer());
    // An archive body: the typed client sends the seed's JSON form only.
    const seed = (body: Uint8Array) =>
      emu.rawRequest("POST", "/_emulator/seed", {
        key: emu.runtime.control.adminToken,
        body,
        headers: { "content-type": "application/x-tar" },
      });
    for (let i = 0; i < 5; i++) {
      const seeded = await seed(archive);
      expect(seeded.status).toBe(200);
      expect(temporaryFiles()).toEqual([]);
      const refused = await seed(archive.slice(0, 700));
      expectEnvelope(refused, 422, "validation_error");
      expect(temporaryFiles()).toEqual([]);
    }
  });
});

describe("the answer step", () => {
  test("removes the request's files even when making its answer throws (an observer that fails)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ext-temporary-"));
    const file = join(dir, "staged");
    const failing = () => {
      throw new Error("an observer that fails");
    };
    const app = new Elysia().use(answers([failing])).get("/staged", ({ request }) => {
      openRequestContext(request, "/staged", "other", 0);
      writeFileSync(temporaryOf(request, file), "made for this request alone");
      return { staged: true };
    });
    try {
      // Nothing is answered here: the failure goes on to the framework (in the app, to the one onError).
      await expect(app.handle(new Request("http://127.0.0.1/staged"))).rejects.toThrow("an observer that fails");
      expect(existsSync(file)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
