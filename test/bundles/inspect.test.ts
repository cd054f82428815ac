import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { audioFile, audioHeader, type RawEntry, writeTarGz } from "../../scripts/lib/archive-writer";
import { manifestEntry, validEntries } from "../../scripts/lib/samples";
import { AUDIO_FORMATS, audioFormatOfName, matchesMagic } from "../../server/bundles/audio-formats";
import { DEFAULT_BUNDLE_LIMITS, READ_CAPS } from "../../server/bundles/bundle-limits";
import { inspectBundle } from "../../server/bundles/inspect";

const MB = 1024 * 1024;
const dir = mkdtempSync(join(tmpdir(), "ext-inspect-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
async function inspect(entries: RawEntry[], limits = DEFAULT_BUNDLE_LIMITS) {
  const file = join(dir, `b${n++}.tar.gz`);
  await writeTarGz(entries, file);
  return inspectBundle(file, limits);
}

describe("inspectBundle", () => {
  test("collects every problem in one pass, each with its path", async () => {
    const { problems } = await inspect([
      manifestEntry({
        sounds: [
          { name: "a", file: "sounds/missing.wav" },
          { name: "b", file: "sounds/b.ogg" },
        ],
        allowHosts: Array(21).fill("x.example"),
      }),
      { name: "sounds/b.ogg", data: "not ogg at all" },
      { name: "/abs.js", data: "x" },
      { name: "ok/../../up.js", data: "x" },
      { name: "link", type: "symlink", linkname: "/etc/passwd" },
    ]);
    expect(problems.map((p) => p.path).sort()).toEqual([
      "/abs.js",
      "link",
      "manifest.json",
      "ok/../../up.js",
      "sounds/b.ogg",
      "sounds/missing.wav",
    ]);
  });

  test("checks the archive size against the resolved bundle_total_bytes", async () => {
    const { problems } = await inspect(validEntries(), { ...DEFAULT_BUNDLE_LIMITS, bundle_total_bytes: 100 });
    expect(problems).toEqual([expect.objectContaining({ path: "(archive)", limit: "bundle_total_bytes", max: 100 })]);
  });

  test("each component folder is measured gzipped, against its own limit", async () => {
    const limits = { ...DEFAULT_BUNDLE_LIMITS, bundle_editor_gzip_bytes: 2000 };
    // 100 KB of one repeated line gzips far below 2000 bytes: the raw size does not count, the gzipped size does.
    const compressible = "console.log('same line');\n".repeat(4000);
    expect(
      (await inspect(validEntries({ entries: [{ name: "editor/big.js", data: compressible }] }), limits)).problems,
    ).toEqual([]);
    const { problems } = await inspect(
      validEntries({ entries: [{ name: "editor/rand.bin", generated: { size: 5000, fill: "random" } }] }),
      limits,
    );
    expect(problems).toEqual([
      expect.objectContaining({ path: "editor/", limit: "bundle_editor_gzip_bytes", max: 2000 }),
    ]);
  });

  test("a sound over the warning threshold is a warning, not a problem", async () => {
    const limits = { ...DEFAULT_BUNDLE_LIMITS, sound_warning_bytes: 1000 };
    const result = await inspect(
      validEntries({
        manifest: { sounds: [{ name: "x", file: "sounds/x.wav" }] },
        entries: [{ name: "sounds/x.wav", data: audioFile("WAV", 2000) }],
      }),
      limits,
    );
    expect(result.problems).toEqual([]);
    expect(result.warnings).toEqual([expect.stringContaining("sounds/x.wav")]);
  });

  test("a manifest of {} is valid: sounds, actions and allowHosts are optional", async () => {
    expect(await inspect([manifestEntry({ other: "kept" })])).toEqual({
      problems: [],
      warnings: [],
      manifest: { other: "kept" },
      soundCount: 0,
    });
  });

  test("duplicate entries are reported", async () => {
    const { problems } = await inspect([...validEntries(), { name: "layer/index.js", data: "again" }]);
    expect(problems).toEqual([
      expect.objectContaining({ path: "layer/index.js", message: expect.stringContaining("duplicate") }),
    ]);
  });

  test("silent audio compresses ~1000:1 and is no gzip bomb: two 9 MB silent WAVs are valid", async () => {
    const silent = (name: string): RawEntry => ({
      name,
      generated: { size: 9 * MB, fill: "zero", prefix: audioHeader("WAV") },
    });
    const file = join(dir, "silent.tar.gz");
    await writeTarGz(
      validEntries({
        manifest: {
          sounds: [
            { name: "a", file: "sounds/a.wav" },
            { name: "b", file: "sounds/b.wav" },
          ],
        },
        entries: [silent("sounds/a.wav"), silent("sounds/b.wav")],
      }),
      file,
    );
    const uncompressed = 18 * MB;
    expect(uncompressed / Bun.file(file).size).toBeGreaterThan(500); // far past any ratio a low floor would refuse
    const result = await inspectBundle(file, DEFAULT_BUNDLE_LIMITS);
    expect(result.problems).toEqual([]);
    expect(result.warnings).toEqual([expect.stringContaining("sounds/a.wav"), expect.stringContaining("sounds/b.wav")]);
  });

  test("a NUL in an entry name is refused (a PAX header carries it verbatim)", async () => {
    const { problems } = await inspect([...validEntries(), { name: "layer/a\0.js", data: "x", pax: {} }]);
    expect(problems).toEqual([
      expect.objectContaining({ path: "layer/a\0.js", message: expect.stringContaining("NUL") }),
    ]);
  });

  test(`a file over the per-file cap of ${READ_CAPS.maxEntryBytes / MB} MB is a problem at its path, the rest still inspected`, async () => {
    const { problems } = await inspect([
      ...validEntries(),
      { name: "data/big.bin", generated: { size: READ_CAPS.maxEntryBytes + 1, fill: "zero" } },
      { name: "/abs.js", data: "x" },
    ]);
    expect(problems.map((p) => p.path).sort()).toEqual(["/abs.js", "data/big.bin"]);
    expect(problems.find((p) => p.path === "data/big.bin")!.message).toContain("per-file cap");
    const atCap = await inspect([
      ...validEntries(),
      { name: "data/big.bin", generated: { size: READ_CAPS.maxEntryBytes, fill: "zero" } },
    ]);
    expect(atCap.problems).toEqual([]);
  });
});

describe("audio formats", () => {
  test("each of the seven formats is recognised by extension and content", () => {
    const ext = { MP3: "mp3", WAV: "wav", OGG: "ogg", WebM: "webm", M4A: "m4a", AAC: "aac", FLAC: "flac" } as const;
    for (const f of AUDIO_FORMATS) {
      expect(audioFormatOfName(`s/x.${ext[f].toUpperCase()}`)).toBe(f);
      expect(matchesMagic(f, audioFile(f, 64))).toBe(true);
      expect(matchesMagic(f, Buffer.from("<html><body>nope</body></html>"))).toBe(false);
    }
    expect(matchesMagic("MP3", Buffer.from([0xff, 0xfb, 0x90, 0x64]))).toBe(true); // bare MPEG frame
    expect(matchesMagic("MP3", Buffer.from([0xff, 0xf1, 0x50, 0x80]))).toBe(false); // ADTS is AAC, not MP3
    expect(audioFormatOfName("sounds.mp3/readme")).toBeNull();
  });
});

describe("docs/manifest.schema.json", () => {
  test("is the manifest schema the inspection uses (regenerate with npm run fixtures:bundles)", async () => {
    const { manifestJsonSchema } = await import("../../server/bundles/manifest-schema");
    expect(await Bun.file(join(import.meta.dir, "../../docs/manifest.schema.json")).json()).toEqual(
      manifestJsonSchema(),
    );
  });
});
