/**
 * GET /_emulator/export → POST /_emulator/seed (archive) into a new server: every developer-API read answers
 * byte for byte as before, and the bundle's bytes are the same.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { bundleDir, createExtension, submitVersion } from "../helpers/bundles";
import { expectEnvelope, startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";
import { entriesOf, tarOf } from "../helpers/tar-entries";

let source: TestEmulator;
let target: TestEmulator;
const bundles = bundleDir();
let extensionId: string;
let bundleSha: string;
let archive: Uint8Array;

/** The control plane takes the server's admin token on every bind. */
const adminAuth = (emu: TestEmulator) => ({ authorization: `Bearer ${emu.runtime.control.adminToken}` });
const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
const blobFiles = (emu: TestEmulator) => readdirSync(join(emu.dataDir, "blobs", "objects"));

/** Every developer-API read of the account's extensions, as text. */
/** The archive again, with its fixture.json's text changed by `edit` (the bundles as they were). */
async function withFixtureText(archive: Uint8Array, edit: (text: string) => string): Promise<Buffer> {
  const entries = await entriesOf(archive);
  return tarOf(
    entries.map(([name, body]) => [name, name === "fixture.json" ? Buffer.from(edit(body.toString("utf8"))) : body]),
  );
}

async function reads(emu: TestEmulator): Promise<string[]> {
  const list = await emu.api("GET", "/extensions");
  const out = [list.text];
  for (const x of list.body.extensions as { id: string }[]) {
    for (const path of [
      `/extensions/${x.id}`,
      `/extensions/${x.id}/versions?include=archived`,
      `/extensions/${x.id}/versions`,
      `/extensions/${x.id}/installs`,
      `/extensions/${x.id}/limits`,
      `/extensions/${x.id}/secrets`,
    ]) {
      const res = await emu.api("GET", path);
      expect(res.status).toBe(200);
      out.push(`${path} ${res.text}`);
    }
  }
  return out;
}

beforeAll(async () => {
  source = await startTestEmulator();
  target = await startTestEmulator();
  extensionId = await createExtension(source, "Round Trip");
  const file = await bundles.make();
  bundleSha = sha256(readFileSync(file));
  const submitted = await submitVersion(source, extensionId, { version: "1.0.0", changelog: "first", bundle: file });
  expect(submitted.status).toBe(202);
  const versionId = submitted.body.version.id;
  expect((await source.admin("POST", `/versions/${versionId}/approve`)).status).toBe(200);
  // A second, rejected one: statuses other than approved travel too.
  const second = await submitVersion(source, extensionId, { version: "1.1.0", bundle: await bundles.make() });
  expect((await source.admin("POST", `/versions/${second.body.version.id}/reject`, { reason: "no" })).status).toBe(200);
  expect((await source.admin("POST", `/extensions/${extensionId}/installs`, { count: 1234 })).status).toBe(200);
  expect((await source.admin("POST", `/extensions/${extensionId}/uninstalls`, { count: 34 })).status).toBe(200);
  expect(
    (await source.api("PUT", `/extensions/${extensionId}/secrets/API_TOKEN`, { json: { value: "round-trip-secret" } }))
      .status,
  ).toBe(204);
  expect(
    (await source.admin("PUT", `/overrides/extensions/${extensionId}`, { max_sounds_per_extension: 80 })).status,
  ).toBe(200);
  expect((await source.api("PATCH", `/extensions/${extensionId}`, { json: { visibility: "public" } })).status).toBe(
    200,
  );
  const res = await fetch(`${source.adminUrl}/export`, { headers: adminAuth(source) });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("application/x-tar");
  archive = new Uint8Array(await res.arrayBuffer());
});

afterAll(async () => {
  await stopTestEmulator(source);
  await stopTestEmulator(target);
  bundles.cleanup();
});

describe("export → seed into a new server", () => {
  test("every developer-API read answers byte for byte the same, and the bundle's SHA-256 matches", async () => {
    const before = await reads(source);
    const seeded = await fetch(`${target.adminUrl}/seed`, {
      method: "POST",
      headers: { ...adminAuth(target), "content-type": "application/x-tar" },
      body: archive,
    });
    expect(`${seeded.status} ${await seeded.text()}`).toStartWith("200 ");
    const after = await reads(target);
    expect(after).toEqual(before);
    expect(before.join("\n")).toContain('"installCount":1234');
    expect(before.join("\n")).toContain("API_TOKEN");
    // The bundle files: the same bytes, under the recorded digest.
    const digests = (emu: TestEmulator) =>
      blobFiles(emu)
        .map((f) => sha256(readFileSync(join(emu.dataDir, "blobs", "objects", f))))
        .sort();
    expect(digests(target)).toEqual(digests(source));
    expect(digests(target)).toContain(bundleSha);
    // Loading it again changes no row, and sets the clock back to the export's (the clock is state too).
    const exportedNow = Date.parse((await source.admin("GET", "/clock")).body.now);
    await target.admin("POST", "/clock", { set: "2040-01-01T00:00:00.000Z", freeze: true });
    const again = await fetch(`${target.adminUrl}/seed`, {
      method: "POST",
      headers: { ...adminAuth(target), "content-type": "application/x-tar" },
      body: archive,
    });
    expect(((await again.json()) as { extensionsCreated: number }).extensionsCreated).toBe(0);
    expect(await reads(target)).toEqual(before);
    const clock = (await target.admin("GET", "/clock")).body;
    expect(clock.mode).toBe("real");
    // Within the minute the test took since the export: far from the 2040 it was set to.
    expect(Math.abs(Date.parse(clock.now) - exportedNow)).toBeLessThan(60_000);
  });

  test("the export holds secret names, never their values, unless asked", async () => {
    const text = Buffer.from(archive).toString("latin1");
    expect(text.includes('"name": "API_TOKEN"')).toBe(true);
    expect(text.includes("round-trip-secret")).toBe(false);
  });

  test("an archive whose fixture.json is refused names that file and the field", async () => {
    const fresh = await startTestEmulator();
    try {
      const before = await reads(fresh);
      const newer = await withFixtureText(archive, (text) => text.replace('"formatVersion": 2', '"formatVersion": 99'));
      const res = await fresh.admin("POST", "/seed", undefined, {
        body: newer,
        headers: { ...adminAuth(target), "content-type": "application/x-tar" },
      });
      expectEnvelope(res, 422, "validation_error");
      expect(res.body.error.message).toStartWith(
        "fixture.json of the uploaded archive failed validation: formatVersion: format 99 is newer",
      );
      const broken = await withFixtureText(archive, () => "{ not json");
      const bad = await fresh.admin("POST", "/seed", undefined, {
        body: broken,
        headers: { ...adminAuth(target), "content-type": "application/x-tar" },
      });
      expect(bad.body.error.message).toStartWith(
        "fixture.json of the uploaded archive failed validation: line 1, column 3: not valid JSON",
      );
      // Not a tar at all (a text file sent as one): said as such, not as a truncated entry.
      const text = await fresh.admin("POST", "/seed", undefined, {
        body: "accounts,extensions\n",
        headers: { ...adminAuth(target), "content-type": "application/x-tar" },
      });
      expect(text.body.error.message).toContain("the uploaded archive is not a tar archive of an export: ");
      expect(await reads(fresh)).toEqual(before);
      expect(blobFiles(fresh)).toEqual([]);
    } finally {
      await stopTestEmulator(fresh);
    }
  });

  test("a truncated archive is refused naming the entry, and changes nothing", async () => {
    const fresh = await startTestEmulator();
    try {
      const before = await reads(fresh);
      // Into the bundle's bytes: the archive ends with the bundle (padded to 512) and two zero blocks.
      const cut = archive.slice(0, archive.length - 1024 - 700);
      const res = await fresh.admin("POST", "/seed", undefined, {
        body: cut,
        headers: { ...adminAuth(target), "content-type": "application/x-tar" },
      });
      expectEnvelope(res, 422, "validation_error");
      expect(res.body.error.message).toMatch(/truncated or damaged in entry "bundles\/[0-9a-f]{64}\.tar\.gz"/);
      // The entry is named once, not again by the tar reader's own words.
      expect(res.body.error.message.match(/bundles\/[0-9a-f]{64}\.tar\.gz/g)).toHaveLength(1);
      expect(await reads(fresh)).toEqual(before);
      expect(blobFiles(fresh)).toEqual([]);
    } finally {
      await stopTestEmulator(fresh);
    }
  });
});
