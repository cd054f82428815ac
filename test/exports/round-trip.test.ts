/**
 * GET /_emulator/export → POST /_emulator/seed (archive) into a new server: every developer-API read answers
 * byte for byte as before, and the bundle's bytes are the same.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { bundleDir, createExtension, uploadVersion } from "../helpers/bundles";
import {
  errorOf,
  expectEnvelope,
  jsonAt,
  startTestEmulator,
  stopTestEmulator,
  type TestEmulator,
} from "../helpers/emulator";
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

/** An archive (or anything sent as one) to the seed: raw, as the typed client sends the JSON form only. */
const seedArchive = (emu: TestEmulator, body: Bun.BodyInit) =>
  emu.rawRequest("POST", "/_emulator/seed", {
    key: emu.runtime.control.adminToken,
    body,
    headers: { "content-type": "application/x-tar" },
  });

async function reads(emu: TestEmulator): Promise<string[]> {
  // As text, to compare byte for byte.
  const asText = { parseAs: "text" } as const;
  const list = await emu.client.GET("/developer/v1/extensions", asText);
  const out = [list.data ?? ""];
  const listed = jsonAt(JSON.parse(out[0] ?? ""), "extensions");
  for (const id of Array.isArray(listed) ? listed.map((x) => String(jsonAt(x, "id"))) : []) {
    const byId = { params: { path: { id } }, ...asText };
    const answers = {
      [`/extensions/${id}`]: await emu.client.GET("/developer/v1/extensions/{id}", byId),
      [`/extensions/${id}/versions?include=archived`]: await emu.client.GET("/developer/v1/extensions/{id}/versions", {
        params: { path: { id }, query: { include: "archived" } },
        ...asText,
      }),
      [`/extensions/${id}/versions`]: await emu.client.GET("/developer/v1/extensions/{id}/versions", byId),
      [`/extensions/${id}/installs`]: await emu.client.GET("/developer/v1/extensions/{id}/installs", byId),
      [`/extensions/${id}/limits`]: await emu.client.GET("/developer/v1/extensions/{id}/limits", byId),
      [`/extensions/${id}/secrets`]: await emu.client.GET("/developer/v1/extensions/{id}/secrets", byId),
    };
    for (const [path, res] of Object.entries(answers)) {
      expect(res.response.status).toBe(200);
      out.push(`${path} ${res.data}`);
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
  const submitted = await uploadVersion(source, extensionId, { version: "1.0.0", changelog: "first", bundle: file });
  expect(submitted.response.status).toBe(202);
  const versionId = submitted.data?.version.id ?? "";
  const control = source.control;
  const byExtension = { params: { path: { id: extensionId } } };
  const approved = await control.POST("/_emulator/versions/{versionId}/approve", { params: { path: { versionId } } });
  expect(approved.response.status).toBe(200);
  // A second, rejected one: statuses other than approved travel too.
  const second = await uploadVersion(source, extensionId, { version: "1.1.0", bundle: await bundles.make() });
  const rejected = await control.POST("/_emulator/versions/{versionId}/reject", {
    params: { path: { versionId: second.data?.version.id ?? "" } },
    body: { reason: "no" },
  });
  expect(rejected.response.status).toBe(200);
  const installs = await control.POST("/_emulator/extensions/{id}/installs", { ...byExtension, body: { count: 1234 } });
  expect(installs.response.status).toBe(200);
  const uninstalls = await control.POST("/_emulator/extensions/{id}/uninstalls", {
    ...byExtension,
    body: { count: 34 },
  });
  expect(uninstalls.response.status).toBe(200);
  const secret = await source.client.PUT("/developer/v1/extensions/{id}/secrets/{key}", {
    params: { path: { id: extensionId, key: "API_TOKEN" } },
    body: { value: "round-trip-secret" },
  });
  expect(secret.response.status).toBe(204);
  const override = await control.PUT("/_emulator/overrides/extensions/{id}", {
    ...byExtension,
    body: { max_sounds_per_extension: 80 },
  });
  expect(override.response.status).toBe(200);
  const patched = await source.client.PATCH("/developer/v1/extensions/{id}", {
    ...byExtension,
    body: { visibility: "public" },
  });
  expect(patched.response.status).toBe(200);
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
    const exportedNow = Date.parse((await source.control.GET("/_emulator/clock")).data?.now ?? "");
    await target.control.POST("/_emulator/clock", { body: { set: "2040-01-01T00:00:00.000Z", freeze: true } });
    const again = await fetch(`${target.adminUrl}/seed`, {
      method: "POST",
      headers: { ...adminAuth(target), "content-type": "application/x-tar" },
      body: archive,
    });
    expect(((await again.json()) as { extensionsCreated: number }).extensionsCreated).toBe(0);
    expect(await reads(target)).toEqual(before);
    const clock = (await target.control.GET("/_emulator/clock")).data;
    expect(clock?.mode).toBe("real");
    // Within the minute the test took since the export: far from the 2040 it was set to.
    expect(Math.abs(Date.parse(clock?.now ?? "") - exportedNow)).toBeLessThan(60_000);
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
      const res = await seedArchive(fresh, newer);
      expectEnvelope(res, 422, "validation_error");
      expect(errorOf(res.body)?.message).toStartWith(
        "fixture.json of the uploaded archive failed validation: formatVersion: format 99 is newer",
      );
      const broken = await withFixtureText(archive, () => "{ not json");
      const bad = await seedArchive(fresh, broken);
      expect(errorOf(bad.body)?.message).toStartWith(
        "fixture.json of the uploaded archive failed validation: line 1, column 3: not valid JSON",
      );
      // Not a tar at all (a text file sent as one): said as such, not as a truncated entry.
      const text = await seedArchive(fresh, "accounts,extensions\n");
      expect(errorOf(text.body)?.message).toContain("the uploaded archive is not a tar archive of an export: ");
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
      const res = await seedArchive(fresh, cut);
      expectEnvelope(res, 422, "validation_error");
      expect(errorOf(res.body)?.message).toMatch(/truncated or damaged in entry "bundles\/[0-9a-f]{64}\.tar\.gz"/);
      // The entry is named once, not again by the tar reader's own words.
      expect(errorOf(res.body)?.message?.match(/bundles\/[0-9a-f]{64}\.tar\.gz/g)).toHaveLength(1);
      expect(await reads(fresh)).toEqual(before);
      expect(blobFiles(fresh)).toEqual([]);
    } finally {
      await stopTestEmulator(fresh);
    }
  });
});
