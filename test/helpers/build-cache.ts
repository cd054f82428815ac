/**
 * What several test files build the same way, built once per source state and shared by every test file
 * (and parallel worker) that reads it: the sample bundles and the hostile corpus (five files read them), the
 * npm package's Node helper (four files; bundling and emitting its declarations takes seconds). Keyed like the
 * shared binary (test/binary/binary-cache.ts), so an edit to a builder rebuilds. Each is built under a private
 * name and renamed into place whole: a reader never sees half of one, and two builders racing make the same.
 * Read what it returns; never write into it.
 */
import { existsSync, mkdirSync, renameSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { buildNodeHelper } from "../../scripts/lib/node-helper";
import { pruneOthers, sourceHash } from "../binary/binary-cache";

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

async function cached(name: string, build: (path: string) => Promise<void>): Promise<string> {
  const path = join(cacheFolder(), name);
  if (existsSync(path)) return path;
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
  return path;
}

/** A hostile-corpus (or accepted-corpus) archive's path. */
export const corpusArchive = (c: { file: string; build(): Promise<Buffer> }) =>
  cached(`corpus-${c.file}`, async (path) => writeFileSync(path, await c.build()));

/** A sample bundle's path. */
export const sampleArchive = (s: { file: string; build(outFile: string): Promise<void> }) =>
  cached(`sample-${s.file}`, (path) => s.build(path));

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
