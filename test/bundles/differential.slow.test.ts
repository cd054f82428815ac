/**
 * The differential test: for every sample bundle the project ships, every archive of the hostile corpus and
 * archives made by the system's own tar, what the inspector read is compared with what GNU tar and Python's
 * tarfile list. An archive the inspector accepts must list identically in both (paths, types, sizes) and
 * read cleanly in both; an archive it read to the end but refused for its content must list identically
 * too. Only an archive it refused as unreadable (a format refusal or a cap) is not compared.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ACCEPTED_CORPUS, HOSTILE_CORPUS } from "../../scripts/lib/hostile-corpus";
import { SAMPLE_BUNDLES } from "../../scripts/lib/samples";
import { ARCHIVES_TIMEOUT_MS, corpusArchives, sampleArchives } from "../helpers/build-cache";
import { gnuTarListing, inspectorListing, tarfileLister } from "../helpers/tar-listing";

const dir = mkdtempSync(join(tmpdir(), "ext-diff-"));
const tarfile = tarfileLister();
afterAll(async () => {
  await tarfile.close();
  rmSync(dir, { recursive: true, force: true });
});
let samples: Map<string, string>;
let corpus: Map<string, string>;
beforeAll(async () => {
  samples = await sampleArchives(SAMPLE_BUNDLES);
  corpus = await corpusArchives([...HOSTILE_CORPUS, ...ACCEPTED_CORPUS]);
}, ARCHIVES_TIMEOUT_MS);

async function compare(file: string) {
  const { result, listing } = await inspectorListing(file);
  if (!listing.ok) return { compared: false, accepted: false };
  const [gnu, py] = await Promise.all([gnuTarListing(file), tarfile.listing(file)]);
  expect({ tool: "GNU tar", ...gnu }).toEqual({ tool: "GNU tar", entries: listing.entries, ok: true });
  expect({ tool: "tarfile", ...py }).toEqual({ tool: "tarfile", entries: listing.entries, ok: true });
  return { compared: true, accepted: result.problems.length === 0 };
}

describe("inspector vs GNU tar vs tarfile", () => {
  for (const sample of SAMPLE_BUNDLES) {
    test(`sample ${sample.file}`, async () => {
      const file = samples.get(sample.file)!;
      const { compared, accepted } = await compare(file);
      if (!sample.expect) expect({ compared, accepted }).toEqual({ compared: true, accepted: true });
    }, 60_000);
  }
  for (const c of [...HOSTILE_CORPUS, ...ACCEPTED_CORPUS]) {
    test(`corpus ${c.file}`, async () => {
      const file = corpus.get(c.file)!;
      const { compared, accepted } = await compare(file);
      if (!c.refused) expect({ compared, accepted }).toEqual({ compared: true, accepted: true });
      else expect(accepted).toBe(false);
    }, 60_000);
  }

  const tree = join(dir, "tree");
  mkdirSync(join(tree, "layer", "a".repeat(90)), { recursive: true });
  writeFileSync(join(tree, "manifest.json"), "{}");
  writeFileSync(join(tree, "layer", "a".repeat(90), `${"b".repeat(90)}.js`), "export default 1;\n");
  writeFileSync(join(tree, "layer", "é ü.js"), "1");
  const tools: [string, string[]][] = [
    ["GNU tar czf (gnu format, long names)", ["tar", "czf"]],
    ["GNU tar --format=posix (PAX headers)", ["tar", "--format=posix", "-czf"]],
    ["GNU tar --format=ustar", ["tar", "--format=ustar", "-czf"]],
  ];
  // bsdtar is optional here: the macOS shape is covered by the corpus without it.
  if (Bun.which("bsdtar")) tools.push(["bsdtar czf", ["bsdtar", "czf"]]);
  for (const [name, argv] of tools) {
    test(`${name} of a real directory: accepted, and listed identically`, async () => {
      const file = join(dir, `${name.replace(/\W+/g, "-")}.tar.gz`);
      const proc = Bun.spawn([...argv, file, "."], { cwd: tree, stdout: "pipe", stderr: "pipe" });
      expect(await proc.exited).toBe(0);
      expect(await compare(file)).toEqual({ compared: true, accepted: true });
    });
  }
});
