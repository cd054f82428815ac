/**
 * The compiled `ext`, built once for every test file that needs it: the first caller builds it into a cache
 * directory named by a hash of what goes into it (every file of the tree but test/ and bench/, the commit the
 * binary prints, Bun's version); the others, in this process or in parallel workers, wait for it and reuse it.
 * A test file never writes next to the binary (it gets its own work directory), so sharing one is safe.
 *
 * Concurrency: one builder per hash holds a lock file (`wx`, holding its pid); the binary is written to a
 * private directory and renamed into place whole, so a reader never sees half a binary. A lock whose holder
 * died is taken over.
 */
import { spawnSync } from "node:child_process";
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { processAlive } from "../../server/data-dir/lock";
import { gitCommit } from "../../tools/cli/lib/version";

const ROOT = resolve(import.meta.dir, "../..");
const BUN = join(ROOT, "node_modules/.bin/bun");
const CACHE = process.env.EXT_TEST_BINARY_CACHE ?? join(tmpdir(), "ext-test-binary");
/** Cached binaries of other source states unused this long are removed (each is ~120 MB). */
const UNUSED_MS = 60 * 60_000;

/** Files that do not go into the binary: editing a test must not cost a rebuild. */
const NOT_BUILT = /^(test|bench)\//;

let hashed: string | undefined;

/**
 * A hash of everything the build reads: the tree's files (tracked or not, minus ignored ones), commit, Bun. Worked
 * out once per process (about 30 ms: every file is read), since a run does not edit the tree it tests.
 */
export function sourceHash(): string {
  hashed ??= hashTree();
  return hashed;
}

function hashTree(): string {
  const listed = spawnSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: ROOT,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (listed.status !== 0) throw new Error(`git ls-files failed: ${listed.stderr}`);
  const hash = new Bun.CryptoHasher("sha256");
  hash.update(`${gitCommit(ROOT)}\0${Bun.version}\0`);
  for (const file of listed.stdout.split("\0").filter(Boolean).sort()) {
    if (NOT_BUILT.test(file)) continue;
    const path = join(ROOT, file);
    if (!existsSync(path)) continue; // deleted but not yet staged
    hash.update(`${file}\0`);
    hash.update(readFileSync(path));
  }
  return hash.digest("hex").slice(0, 16);
}

/** Takes the lock (true), or finds it held by a live builder (false); a dead builder's lock is removed. */
export function tryLock(lock: string): boolean {
  try {
    const fd = openSync(lock, "wx");
    writeSync(fd, String(process.pid));
    closeSync(fd);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
  }
  const holder = Number(readFileSafe(lock));
  // An empty file is a builder between open and write: alive by definition.
  if (holder > 0 && !processAlive(holder)) rmSync(lock, { force: true });
  return false;
}

function readFileSafe(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

function build(key: string, dir: string, timeoutMs: number): void {
  const partial = `${dir}.partial-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  const proc = Bun.spawnSync([BUN, "scripts/build.ts", "--outfile", join(partial, "ext")], {
    cwd: ROOT,
    // A build that never ends must fail, not hang the run: this call blocks the test's own timers.
    timeout: timeoutMs,
    stdout: "pipe",
    stderr: "pipe",
  });
  if (proc.exitCode !== 0 || !existsSync(join(partial, "ext"))) {
    rmSync(partial, { recursive: true, force: true });
    throw new Error(`build of the test binary (${key}) failed: ${proc.stderr.toString()}`);
  }
  renameSync(partial, dir);
}

/**
 * Removes what other source states left in `cache` that nobody used for an hour (an entry's mtime is touched
 * on use); `keep` and the entries named after it (its lock) stay.
 */
export function pruneOthers(cache: string, keep: string): void {
  for (const name of readdirSync(cache)) {
    if (name.startsWith(keep)) continue;
    const path = join(cache, name);
    try {
      if (Date.now() - statSync(path).mtimeMs > UNUSED_MS) rmSync(path, { recursive: true, force: true });
    } catch {
      // removed by another run meanwhile
    }
  }
}

/** The path of the shared binary for the tree as it is now, built first if no run built it yet. */
export function sharedBinary(timeoutMs: number): string {
  const key = sourceHash();
  const dir = join(CACHE, key);
  const bin = join(dir, "ext");
  mkdirSync(CACHE, { recursive: true });
  const lock = join(CACHE, `${key}.lock`);
  const deadline = performance.now() + timeoutMs;
  while (!existsSync(bin)) {
    if (tryLock(lock)) {
      try {
        if (!existsSync(bin)) build(key, dir, timeoutMs);
      } finally {
        rmSync(lock, { force: true });
      }
      pruneOthers(CACHE, key);
      break;
    }
    if (performance.now() > deadline) throw new Error(`waited ${timeoutMs} ms for another build of ${bin}`);
    Bun.sleepSync(50);
  }
  const now = new Date();
  utimesSync(dir, now, now);
  return bin;
}
