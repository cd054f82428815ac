/**
 * The sample bundles: one valid archive and one of each invalid kind, with the problem inspection must
 * report for each. scripts/make-sample-bundles.ts writes them to fixtures/bundles/; the bundle tests build
 * and inspect every one. Lives outside src/: the server has no use for them.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { AUDIO_FORMATS, type AudioFormat } from "../../server/bundles/audio-formats";
import { audioFile, audioHeader, type RawEntry, writeTarGz } from "./archive-writer";

const MB = 1024 * 1024;
const EXT: Record<AudioFormat, string> = {
  MP3: "mp3",
  WAV: "wav",
  OGG: "ogg",
  WebM: "webm",
  M4A: "m4a",
  AAC: "aac",
  FLAC: "flac",
};

export interface SampleBundle {
  /** File name under fixtures/bundles/. */
  file: string;
  description: string;
  /** The problem inspection reports (absent for valid samples). */
  expect?: { path: string; message: RegExp };
  /** A warning the valid sample carries. */
  warning?: RegExp;
  build(outFile: string): Promise<void>;
}

export function manifestEntry(manifest: unknown): RawEntry {
  return { name: "manifest.json", data: JSON.stringify(manifest, null, 2) };
}

/** n sounds, cycling through the seven formats, with their manifest entries. */
export function soundEntries(n: number, size = 256): { entries: RawEntry[]; sounds: { name: string; file: string }[] } {
  const entries: RawEntry[] = [];
  const sounds: { name: string; file: string }[] = [];
  for (let i = 0; i < n; i++) {
    const format = AUDIO_FORMATS[i % AUDIO_FORMATS.length]!;
    const file = `sounds/s${i}.${EXT[format]}`;
    entries.push({ name: file, data: audioFile(format, size) });
    sounds.push({ name: `s${i}`, file });
  }
  return { entries, sounds };
}

/** A small valid bundle: manifest, one file per component, an asset and one sound of each format. */
export function validEntries(
  extra: { manifest?: Record<string, unknown>; entries?: RawEntry[]; sounds?: number } = {},
): RawEntry[] {
  const { entries: soundFiles, sounds } = soundEntries(extra.sounds ?? 7);
  return [
    manifestEntry({
      name: "sample",
      sounds,
      actions: [{ name: "ping" }],
      allowHosts: ["api.example.com"],
      ...extra.manifest,
    }),
    { name: "layer/index.js", data: "export default function layer() { return 'layer'; }\n" },
    { name: "editor/index.js", data: "export default function editor() { return 'editor'; }\n" },
    { name: "interactive/index.js", data: "export default function interactive() { return 'interactive'; }\n" },
    { name: "assets/logo.svg", data: '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>\n' },
    ...soundFiles,
    ...(extra.entries ?? []),
  ];
}

const tarGz = (entries: () => RawEntry[], gzipLevel?: number) => (out: string) => writeTarGz(entries(), out, gzipLevel);
const ARCHIVE = "(archive)";

export const SAMPLE_BUNDLES: SampleBundle[] = [
  {
    file: "valid.tar.gz",
    description: "A valid bundle: manifest, layer/editor/interactive, assets, one sound of each of the seven formats.",
    build: tarGz(() => validEntries()),
  },
  {
    file: "valid-large-sound.tar.gz",
    description: "Valid, with a 6 MB sound: accepted with a warning (over the 5 MB threshold).",
    warning: /sounds\/big\.wav: 6\.0 MB is over the 5\.0 MB/,
    build: tarGz(() =>
      validEntries({
        manifest: { sounds: [{ name: "big", file: "sounds/big.wav" }] },
        entries: [{ name: "sounds/big.wav", generated: { size: 6 * MB, fill: "random", prefix: audioHeader("WAV") } }],
      }),
    ),
  },
  {
    file: "not-gzip.tar.gz",
    description: "Plain text, not gzip.",
    expect: { path: ARCHIVE, message: /not a gzip file/ },
    build: async (out) => writeFileSync(out, "this is not an archive\n"),
  },
  {
    file: "truncated-gzip.tar.gz",
    description: "A valid archive cut in half.",
    expect: { path: ARCHIVE, message: /corrupt or truncated gzip/ },
    build: async (out) => {
      await writeTarGz(validEntries(), out);
      const buf = readFileSync(out);
      writeFileSync(out, buf.subarray(0, Math.floor(buf.length / 2)));
    },
  },
  {
    file: "not-tar.tar.gz",
    description: "Gzip of text that is not a tar archive.",
    expect: { path: ARCHIVE, message: /not a tar archive/ },
    build: async (out) => writeFileSync(out, gzipSync("x".repeat(2048))),
  },
  {
    file: "absolute-path.tar.gz",
    description: "An entry with an absolute path.",
    expect: { path: "/etc/evil.js", message: /absolute path/ },
    build: tarGz(() => validEntries({ entries: [{ name: "/etc/evil.js", data: "x" }] })),
  },
  {
    file: "dot-dot.tar.gz",
    description: 'An entry whose path climbs out with "..".',
    expect: { path: "layer/../../evil.js", message: /"\.\."/ },
    build: tarGz(() => validEntries({ entries: [{ name: "layer/../../evil.js", data: "x" }] })),
  },
  {
    file: "symlink.tar.gz",
    description: "A symbolic link entry.",
    expect: { path: "assets/passwd", message: /symbolic link/ },
    build: tarGz(() =>
      validEntries({ entries: [{ name: "assets/passwd", type: "symlink", linkname: "/etc/passwd" }] }),
    ),
  },
  {
    file: "hardlink.tar.gz",
    description: "A hard link entry.",
    expect: { path: "assets/copy.svg", message: /hard link/ },
    build: tarGz(() =>
      validEntries({ entries: [{ name: "assets/copy.svg", type: "link", linkname: "assets/logo.svg" }] }),
    ),
  },
  {
    file: "device.tar.gz",
    description: "A character device entry.",
    expect: { path: "dev-null", message: /character device/ },
    build: tarGz(() => validEntries({ entries: [{ name: "dev-null", type: "character-device" }] })),
  },
  {
    file: "gzip-bomb.tar.gz",
    description:
      "Ten 32 MB files of zeros (about 320 KB compressed), each within the per-file cap: stopped by the compression-ratio cap once 256 MB came out.",
    expect: { path: ARCHIVE, message: /compression ratio above 200:1 \(gzip bomb\?\); inspection stopped/ },
    build: tarGz(() =>
      validEntries({
        entries: Array.from({ length: 10 }, (_, i) => ({
          name: `data/zeros${i}.bin`,
          generated: { size: 32 * MB, fill: "zero" as const },
        })),
      }),
    ),
  },
  {
    file: "uncompressed-too-large.tar.gz",
    description:
      "Seventeen 32 MB files that compress ~30:1 (under the ratio cap): stopped by the 512 MB uncompressed cap.",
    expect: { path: ARCHIVE, message: /uncompressed content exceeds 512(\.0)? MB \(gzip bomb\?\); inspection stopped/ },
    build: tarGz(
      () =>
        validEntries({
          entries: Array.from({ length: 17 }, (_, i) => ({
            name: `data/sparse${i}.bin`,
            generated: { size: 32 * MB, fill: "sparse" as const },
          })),
        }),
      1,
    ),
  },
  {
    file: "too-many-entries.tar.gz",
    description: "50,001 empty folders: stopped by the cap on the number of entries.",
    expect: { path: ARCHIVE, message: /more than 50000 entries; inspection stopped/ },
    build: tarGz(() => [
      ...validEntries(),
      ...Array.from({ length: 50_001 }, (_, i) => ({ name: `d${i}/`, type: "directory" as const })),
    ]),
  },
  {
    file: "manifest-missing.tar.gz",
    description: "No manifest.json.",
    expect: { path: "manifest.json", message: /missing/ },
    build: tarGz(() => validEntries().filter((e) => e.name !== "manifest.json")),
  },
  {
    file: "manifest-not-json.tar.gz",
    description: "manifest.json that is not JSON.",
    expect: { path: "manifest.json", message: /not valid JSON/ },
    build: tarGz(() => [
      { name: "manifest.json", data: "{ sounds: [" },
      ...validEntries().filter((e) => e.name !== "manifest.json"),
    ]),
  },
  {
    file: "manifest-wrong-shape.tar.gz",
    description: "manifest.json whose sounds is not an array of {name, file}.",
    expect: { path: "manifest.json", message: /sounds/ },
    build: tarGz(() => [
      manifestEntry({ sounds: "all of them" }),
      ...validEntries().filter((e) => e.name !== "manifest.json"),
    ]),
  },
  {
    file: "too-many-sounds.tar.gz",
    description: "51 sounds: over the default resolved limit of 50.",
    expect: { path: "manifest.json", message: /51 sounds for this extension; the limit is 50/ },
    build: tarGz(() => validEntries({ sounds: 51 })),
  },
  {
    file: "sounds-over-manifest-cap.tar.gz",
    description: "201 sounds: over the 200 manifest entries.",
    expect: { path: "manifest.json", message: /201 sounds in the manifest; the limit is 200/ },
    build: tarGz(() => validEntries({ sounds: 201 })),
  },
  {
    file: "sound-too-large.tar.gz",
    description: "An 11 MB sound: over the 10 MB sound file limit.",
    expect: { path: "sounds/huge.flac", message: /over the sound file limit/ },
    build: tarGz(() =>
      validEntries({
        manifest: { sounds: [{ name: "huge", file: "sounds/huge.flac" }] },
        entries: [
          { name: "sounds/huge.flac", generated: { size: 11 * MB, fill: "random", prefix: audioHeader("FLAC") } },
        ],
      }),
    ),
  },
  {
    file: "sound-missing.tar.gz",
    description: "The manifest names a sound file the archive lacks.",
    expect: { path: "sounds/ghost.mp3", message: /missing from the archive/ },
    build: tarGz(() => validEntries({ manifest: { sounds: [{ name: "ghost", file: "sounds/ghost.mp3" }] } })),
  },
  {
    file: "sound-bad-extension.tar.gz",
    description: "A sound with an unsupported extension (.txt).",
    expect: { path: "sounds/notes.txt", message: /not a supported sound format/ },
    build: tarGz(() =>
      validEntries({
        manifest: { sounds: [{ name: "notes", file: "sounds/notes.txt" }] },
        entries: [{ name: "sounds/notes.txt", data: "la la la" }],
      }),
    ),
  },
  {
    file: "sound-bad-content.tar.gz",
    description: "A .mp3 file whose content is not MP3 (a PNG).",
    expect: { path: "sounds/fake.mp3", message: /not MP3 audio/ },
    build: tarGz(() =>
      validEntries({
        manifest: { sounds: [{ name: "fake", file: "sounds/fake.mp3" }] },
        entries: [{ name: "sounds/fake.mp3", data: Buffer.from("\x89PNG\r\n\x1a\n0000000000", "latin1") }],
      }),
    ),
  },
  {
    file: "layer-too-large.tar.gz",
    description: "layer/ over 5 MB gzipped (6 MB of incompressible bytes).",
    expect: { path: "layer/", message: /layer\/ is 6\.0 MB gzipped; the limit is 5\.0 MB/ },
    build: tarGz(() =>
      validEntries({ entries: [{ name: "layer/blob.bin", generated: { size: 6 * MB, fill: "random" } }] }),
    ),
  },
  {
    file: "assets-too-large.tar.gz",
    description: "assets/ over 20 MB.",
    expect: { path: "assets/", message: /assets\/ holds 21\.0 MB; the limit is 20\.0 MB/ },
    build: tarGz(() =>
      validEntries({ entries: [{ name: "assets/video.bin", generated: { size: 21 * MB, fill: "random" } }] }),
    ),
  },
  {
    file: "too-many-actions.tar.gz",
    description: "51 actions.",
    expect: { path: "manifest.json", message: /51 actions; the limit is 50/ },
    build: tarGz(() =>
      validEntries({ manifest: { actions: Array.from({ length: 51 }, (_, i) => ({ name: `a${i}` })) } }),
    ),
  },
  {
    file: "too-many-allow-hosts.tar.gz",
    description: "21 allowHosts entries.",
    expect: { path: "manifest.json", message: /21 allowHosts entries; the limit is 20/ },
    build: tarGz(() =>
      validEntries({ manifest: { allowHosts: Array.from({ length: 21 }, (_, i) => `h${i}.example.com`) } }),
    ),
  },
];
