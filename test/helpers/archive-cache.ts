/**
 * The sample bundles and the hostile corpus as files, built once per source state and shared by every test
 * file (and parallel worker) that reads them: five files read the same archives, and building them takes
 * seconds. Keyed like the shared binary (test/binary/binary-cache.ts), so an edit to a builder rebuilds.
 * Each is written under a private name and renamed into place whole: a reader never sees half an archive,
 * and two builders racing write the same bytes.
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sourceHash } from "../binary/binary-cache";

const CACHE = join(tmpdir(), "ext-test-archives");
/** Other source states' archives unused this long are removed. */
const UNUSED_MS = 60 * 60_000;

let folder: string | undefined;

function cacheFolder(): string {
  if (folder) return folder;
  const key = sourceHash();
  folder = join(CACHE, key);
  mkdirSync(folder, { recursive: true });
  const now = new Date();
  utimesSync(folder, now, now);
  for (const name of readdirSync(CACHE)) {
    if (name === key) continue;
    try {
      if (Date.now() - statSync(join(CACHE, name)).mtimeMs > UNUSED_MS)
        rmSync(join(CACHE, name), { recursive: true, force: true });
    } catch {
      // removed by another run meanwhile
    }
  }
  return folder;
}

async function cached(name: string, write: (path: string) => Promise<void>): Promise<string> {
  const path = join(cacheFolder(), name);
  if (existsSync(path)) return path;
  const partial = `${path}.partial-${process.pid}-${crypto.randomUUID()}`;
  try {
    await write(partial);
    renameSync(partial, path);
  } finally {
    rmSync(partial, { force: true });
  }
  return path;
}

/** A hostile-corpus (or accepted-corpus) archive's path; read it, never write to it. */
export const corpusArchive = (c: { file: string; build(): Promise<Buffer> }) =>
  cached(`corpus-${c.file}`, async (path) => writeFileSync(path, await c.build()));

/** A sample bundle's path; read it, never write to it. */
export const sampleArchive = (s: { file: string; build(outFile: string): Promise<void> }) =>
  cached(`sample-${s.file}`, (path) => s.build(path));
