/**
 * The hostile-archive corpus (scripts/lib/hostile-corpus.ts) through the inspector: every case refused with
 * its reason at its path, every real-world shape accepted. Over a real socket: test/versions/hostile-upload.slow.test.ts;
 * against GNU tar and tarfile: test/bundles/differential.slow.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { ACCEPTED_CORPUS, HOSTILE_CORPUS } from "../../scripts/lib/hostile-corpus";
import { END, entry } from "../../scripts/lib/raw-tar";
import { DEFAULT_BUNDLE_LIMITS } from "../../server/bundles/bundle-limits";
import { inspectBundle } from "../../server/bundles/inspect";
import { ARCHIVES_TIMEOUT_MS, corpusArchives } from "../helpers/build-cache";

const dir = mkdtempSync(join(tmpdir(), "ext-hostile-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let archives: Map<string, string>;
beforeAll(async () => {
  archives = await corpusArchives([...HOSTILE_CORPUS, ...ACCEPTED_CORPUS]);
}, ARCHIVES_TIMEOUT_MS);

const inspectCase = (c: { file: string }) => inspectBundle(archives.get(c.file)!, DEFAULT_BUNDLE_LIMITS);

describe("the hostile corpus", () => {
  for (const c of HOSTILE_CORPUS) {
    test(`${c.file}: refused (${c.description})`, async () => {
      const { problems } = await inspectCase(c);
      const { path, message } = c.refused!;
      const hit = problems.find(
        (p) => (typeof path === "string" ? p.path === path : path.test(p.path ?? "")) && message.test(p.message),
      );
      if (!hit)
        throw new Error(
          `expected a problem at ${path} matching ${message}, got ${JSON.stringify(problems).slice(0, 2000)}`,
        );
      expect(problems.length).toBeLessThanOrEqual(101);
    }, 30_000);
  }
  test("a 2 MB manifest is reported once, as too large, not also as missing", async () => {
    const { problems } = await inspectCase(HOSTILE_CORPUS.find((c) => c.file === "manifest-2mb.tar.gz")!);
    expect(problems).toEqual([{ path: "manifest.json", message: "manifest.json: larger than 1.0 MB" }]);
  });
  test("9,000 wrong allowHosts values give the first 100 problems and one line saying the rest were not listed", async () => {
    const { problems } = await inspectCase(HOSTILE_CORPUS.find((c) => c.file === "manifest-many-errors.tar.gz")!);
    expect(problems).toHaveLength(101);
    expect(problems.at(-1)!.message).toBe("more than 100 problems; only the first 100 are listed");
  });
  test("the manifest's shape check stops at the cap too, and says the rest were not listed", async () => {
    const file = join(dir, "shape-errors.tar.gz");
    writeFileSync(
      file,
      gzipSync(Buffer.concat([entry({ name: "manifest.json" }, JSON.stringify({ sounds: Array(80).fill({}) })), END])),
    );
    const { problems } = await inspectBundle(file, {
      ...DEFAULT_BUNDLE_LIMITS,
      max_sounds_in_manifest: 1000,
      max_sounds_per_extension: 1000,
    });
    expect(problems).toHaveLength(101);
    expect(problems.slice(0, 100).every((p) => p.path === "manifest.json" && p.field?.startsWith("sounds["))).toBe(
      true,
    );
    expect(problems.at(-1)).toEqual({
      path: "(archive)",
      message: "more than 100 problems; only the first 100 are listed",
    });
  });
});

describe("real-world shapes", () => {
  for (const c of ACCEPTED_CORPUS) {
    test(`${c.file}: accepted (${c.description})`, async () => {
      expect((await inspectCase(c)).problems).toEqual([]);
    });
  }
});
