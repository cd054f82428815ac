/**
 * One server per data directory. The lock is an SQLite EXCLUSIVE transaction on `<dir>/ext.lock`, held
 * open for the life of the runtime: SQLite takes it with the operating system's file locks, which the
 * kernel drops when the process dies (SIGKILL included), so a crashed server never leaves a lock that
 * needs judging — a lock file left behind is simply taken over. SQLite also sees two connections of one
 * process, so two runtimes in one process conflict too. `<dir>/ext.pid` names the holder for the message.
 *
 * `--memory` directories are private mkdtemp directories in the temp dir, each locked the same way; a memory
 * start removes those of ours nobody holds any more (left by a kill -9), never following a symlink.
 */
import { Database } from "bun:sqlite";
import {
  closeSync,
  lstatSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";

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
  closeSync(openSync(file, "a", 0o600));
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
  writeFileSync(temp, `${process.pid}\n`, { mode: 0o600 });
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

/**
 * Every `--memory` directory is a fresh mkdtemp (0700) directly in the temp dir, named with this prefix:
 * there is no shared parent that another local user could create first and so read or replace the bundles.
 */
export function memoryDirPrefix(dir = tmpdir()): string {
  return join(dir, `ext-memory-${typeof process.getuid === "function" ? `${process.getuid()}-` : ""}`);
}

/** True while a process with this PID exists, this user's or another's. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists, it is just not ours to signal.
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

const CREATING = "new-";

/**
 * A real directory (not a symlink) owned by this user and closed to everyone else: only such a one can
 * be a memory directory of ours. Anything else under the name was put there by someone else: left alone.
 */
function ownPrivateDir(path: string): boolean {
  try {
    const st = lstatSync(path);
    if (!st.isDirectory()) return false;
    // Windows has neither POSIX modes nor uids: the folder being a real one in this user's temp dir is all.
    if (typeof process.getuid !== "function") return true;
    return (st.mode & 0o077) === 0 && st.uid === process.getuid();
  } catch {
    return false;
  }
}

/**
 * Removes the memory directories whose server is gone (their lock is free). A directory is created under a
 * `new-<pid>-…` name and renamed only once locked, so a sweep never mistakes one being created for a
 * dead one; a `new-` directory is removed only when the PID in its name is gone. Returns the names removed.
 */
export function sweepMemoryDirs(prefix = memoryDirPrefix()): string[] {
  const removed: string[] = [];
  const parent = dirname(prefix);
  const start = basename(prefix);
  let entries: string[];
  try {
    entries = readdirSync(parent).filter((name) => name.startsWith(start));
  } catch {
    return removed;
  }
  for (const name of entries) {
    const dir = join(parent, name);
    if (!ownPrivateDir(dir)) continue;
    const rest = name.slice(start.length);
    // This process's own directories are live (each is removed by its own release). They are never probed:
    // opening and closing a lock file this process holds drops the process's lock on it (POSIX locks belong
    // to the process, and any close releases them), and another process's sweep would then remove it.
    if (Number(rest.replace(CREATING, "").split("-")[0]) === process.pid) continue;
    if (rest.startsWith(CREATING)) {
      const pid = Number(rest.slice(CREATING.length).split("-")[0]);
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
    // rm never follows a symbolic link inside the tree: it removes the link itself.
    rmSync(dir, { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}

/** A fresh, locked `--memory` directory (after sweeping the dead ones); `release` unlocks and removes it. */
export function createMemoryDir(prefix = memoryDirPrefix()): { dir: string; swept: string[]; release(): void } {
  const swept = sweepMemoryDirs(prefix);
  // mkdtemp makes the directory 0700 under a random name it created itself (O_EXCL semantics).
  const creating = mkdtempSync(`${prefix}${CREATING}${process.pid}-`);
  const lock = lockDataDir(creating);
  // The lock lives on the file, not its name: it holds through the rename.
  const dir = `${prefix}${process.pid}-${creating.slice(creating.lastIndexOf("-") + 1)}`;
  renameSync(creating, dir);
  return {
    dir,
    swept,
    release() {
      lock.release();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
