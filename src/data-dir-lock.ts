/**
 * One server per data directory. The lock is an SQLite EXCLUSIVE transaction on `<dir>/ext.lock`, held
 * open for the life of the runtime: SQLite takes it with the operating system's file locks, which the
 * kernel drops when the process dies (SIGKILL included), so a crashed server never leaves a lock that
 * needs judging — a lock file left behind is simply taken over. SQLite also sees two connections of one
 * process, so two runtimes in one process conflict too. `<dir>/ext.pid` names the holder for the message.
 *
 * `--memory` directories live under one parent in the temp dir, each locked the same way; a memory start
 * removes the siblings nobody holds any more (left by a kill -9).
 */
import { Database } from "bun:sqlite";
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const LOCK_FILE = "ext.lock";
export const PID_FILE = "ext.pid";

/** A second server on a data directory in use: one line, naming the directory and the holder. */
export class DataDirInUseError extends Error {
  constructor(
    readonly dir: string,
    readonly pid: number | null,
  ) {
    super(
      `data directory ${dir} is in use by another ext serve (${pid === null ? "PID unknown" : `PID ${pid}`}); stop it or give another --data-dir`,
    );
  }
}

export interface DirLock {
  /** Removes `ext.pid` (while still holding the lock) and drops the lock; the lock file stays for the next holder. */
  release(): void;
}

function readPid(dir: string): number | null {
  try {
    const pid = Number(readFileSync(join(dir, PID_FILE), "utf8").trim());
    return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** Held here until released: a lock whose connection were garbage-collected would be dropped silently. */
const held = new Set<Database>();

const isBusy = (e: unknown) => /^SQLITE_(BUSY|LOCKED)/.test(String((e as { code?: unknown }).code ?? ""));

/** The lock, or null when another connection (another process, or another runtime here) holds it. */
function tryLock(dir: string): Database | null {
  const file = join(dir, LOCK_FILE);
  // Created through node:fs first: a directory we cannot write fails here with the usual errno error
  // (EACCES, EROFS, …) that start-up reports, not with SQLite's "unable to open database file".
  closeSync(openSync(file, "a"));
  for (let attempt = 0; ; attempt++) {
    const db = new Database(file, { create: true });
    try {
      db.exec("PRAGMA busy_timeout = 0");
      db.exec("BEGIN EXCLUSIVE");
      return db;
    } catch (e) {
      db.close();
      if (isBusy(e)) return null;
      // Not a database (a stray file by that name): nobody can hold a lock through it. Replace it, once.
      if (attempt > 0) throw e;
      rmSync(file, { force: true });
    }
  }
}

/** Takes the data directory's lock or throws DataDirInUseError; then records this process as the holder. */
export function lockDataDir(dir: string): DirLock {
  const db = tryLock(dir);
  if (!db) throw new DataDirInUseError(dir, readPid(dir));
  // Written whole, then renamed: a second server reading it never sees half a PID.
  const temp = join(dir, `${PID_FILE}.${process.pid}`);
  writeFileSync(temp, `${process.pid}\n`);
  renameSync(temp, join(dir, PID_FILE));
  held.add(db);
  return {
    release() {
      if (!held.delete(db)) return;
      // Still ours while the lock is held: nobody else can have written it since.
      if (readPid(dir) === process.pid) rmSync(join(dir, PID_FILE), { force: true });
      db.close();
    },
  };
}

/** The parent of every `--memory` directory: one per user, since the temp dir may be shared. */
export function memoryParentDir(): string {
  return join(tmpdir(), `ext-memory${typeof process.getuid === "function" ? `-${process.getuid()}` : ""}`);
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists, it is just not ours to signal.
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

const CREATING = ".new-";

/**
 * Removes the memory directories whose server is gone (their lock is free). A directory is created under a
 * `.new-<pid>-…` name and renamed only once locked, so a sweep never mistakes one being created for a
 * dead one; a `.new-` directory is removed only when the PID in its name is gone.
 */
export function sweepMemoryDirs(parent = memoryParentDir()): string[] {
  const removed: string[] = [];
  let entries: string[];
  try {
    entries = readdirSync(parent);
  } catch {
    return removed;
  }
  for (const name of entries) {
    const dir = join(parent, name);
    if (name.startsWith(CREATING)) {
      const pid = Number(name.slice(CREATING.length).split("-")[0]);
      if (Number.isSafeInteger(pid) && pid > 0 && processAlive(pid)) continue;
    } else {
      let db: Database | null;
      try {
        db = tryLock(dir);
      } catch {
        continue; // not a directory we can open a lock in: not ours to judge
      }
      if (!db) continue;
      db.close();
    }
    rmSync(dir, { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}

/** A fresh, locked `--memory` directory (after sweeping the dead ones); `release` unlocks and removes it. */
export function createMemoryDir(): { dir: string; swept: string[]; release(): void } {
  const parent = memoryParentDir();
  const swept = sweepMemoryDirs(parent);
  const creating = freshDirIn(parent, `${CREATING}${process.pid}-`);
  const lock = lockDataDir(creating);
  // The lock lives on the file, not its name: it holds through the rename.
  const dir = join(parent, `${process.pid}-${creating.slice(creating.lastIndexOf("-") + 1)}`);
  renameSync(creating, dir);
  return {
    dir,
    swept,
    release() {
      lock.release();
      rmSync(dir, { recursive: true, force: true });
      // The last server out leaves no trace in the temp dir; a non-empty parent stays.
      try {
        rmdirSync(parent);
      } catch {}
    },
  };
}

/** mkdtemp under `parent`, creating it; once more if another server's release removed it in between. */
function freshDirIn(parent: string, prefix: string): string {
  for (let attempt = 0; ; attempt++) {
    mkdirSync(parent, { recursive: true, mode: 0o700 });
    try {
      return mkdtempSync(join(parent, prefix));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT" || attempt >= 2) throw e;
    }
  }
}
