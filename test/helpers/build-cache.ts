/**
 * What several test files build the same way, built once per source state and shared by every test file
 * (and parallel worker) that reads it: the sample bundles and the hostile corpus (five files read them), the
 * npm package's Node helper (four files; bundling and emitting its declarations takes 6 CPU-seconds). Keyed like
 * the shared binary (test/binary/binary-cache.ts), so an edit to a builder rebuilds, and built as it is: by one
 * builder, holding a lock file, while the others wait (the files that need one start together, and side by side
 * they would each build it), under a private name renamed into place whole, so a reader never sees half of one.
 * Read what it returns; never write into it.
 */
import { existsSync, mkdirSync, renameSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { buildNodeHelper } from "../../scripts/lib/node-helper";
import { pruneOthers, sourceHash, tryLock } from "../binary/binary-cache";

const ROOT = resolve(import.meta.dir, "../..");
const CACHE = join(tmpdir(), "ext-test-builds");

let folder: string | undefined;

function cacheFolder(): string {
  if (folder) return folder;
  const key = sourceHash();
  folder = join(CACHE, key);
  mkdirSync(folder, { recursive: true });
  const now = new Date();
  utimesSync(folder, now, now);
  pruneOthers(CACHE, key);
  return folder;
}

/** How long a test file waits for another's build of the same thing before it gives up. */
const BUILD_WAIT_MS = 120_000;

async function cached(name: string, build: (path: string) => Promise<void>): Promise<string> {
  const path = join(cacheFolder(), name);
  const lock = `${path}.lock`;
  const deadline = performance.now() + BUILD_WAIT_MS;
  while (!existsSync(path)) {
    if (tryLock(lock)) {
      try {
        if (!existsSync(path)) await buildInto(path, build);
      } finally {
        rmSync(lock, { force: true });
      }
    } else {
      if (performance.now() > deadline) throw new Error(`waited ${BUILD_WAIT_MS} ms for another build of ${path}`);
      await Bun.sleep(50);
    }
  }
  return path;
}

/** `build` into a private name, then renamed to `path` whole. */
async function buildInto(path: string, build: (path: string) => Promise<void>): Promise<void> {
  const partial = `${path}.partial-${process.pid}-${crypto.randomUUID()}`;
  try {
    await build(partial);
    renameSync(partial, path);
  } catch (e) {
    // A folder another builder renamed into place first is kept; the failure is only ours otherwise.
    if (!existsSync(path)) throw e;
  } finally {
    rmSync(partial, { recursive: true, force: true });
  }
}

type CorpusCase = { file: string; build(): Promise<Buffer> };
type SampleBundle = { file: string; build(outFile: string): Promise<void> };

/** A hostile-corpus (or accepted-corpus) archive's path. */
const corpusArchive = (c: CorpusCase) =>
  cached(`corpus-${c.file}`, async (path) => writeFileSync(path, await c.build()));

/** A sample bundle's path. */
const sampleArchive = (s: SampleBundle) => cached(`sample-${s.file}`, (path) => s.build(path));

/**
 * A beforeAll's budget for getting every archive a test file reads. Building the sample bundles and the corpus
 * costs about 9 CPU-seconds (a 240 MB PAX archive, 50,001 entries), and on a busy 2-core CI machine a single
 * build has taken 15 s: so a file gets its archives first, and its tests' own limits time the inspection only.
 */
export const ARCHIVES_TIMEOUT_MS = 240_000;

/** Every sample bundle's path (built, or another file's build waited for), by its file name. */
export const sampleArchives = (samples: readonly SampleBundle[]) => byFile(samples, sampleArchive);

/** Every corpus case's archive path, by its file name. */
export const corpusArchives = (cases: readonly CorpusCase[]) => byFile(cases, corpusArchive);

async function byFile<C extends { file: string }>(
  items: readonly C[],
  pathOf: (item: C) => Promise<string>,
): Promise<Map<string, string>> {
  const paths = new Map<string, string>();
  for (const item of items) paths.set(item.file, await pathOf(item));
  return paths;
}

/**
 * The main npm package as `npm run package` builds it (scripts/lib/node-helper.ts), in a folder whose
 * node_modules holds its dependencies as npm would place them beside it; returns the package's own folder.
 */
export async function sharedNodeHelper(): Promise<string> {
  const folder = await cached("node-package", async (path) => {
    await buildNodeHelper(join(path, "ext-emulator"));
    mkdirSync(join(path, "node_modules"));
    for (const dep of ["openapi-fetch", "openapi-typescript-helpers"])
      symlinkSync(join(ROOT, "node_modules", dep), join(path, "node_modules", dep));
  });
  return join(folder, "ext-emulator");
}
