/**
 * The data directory holds key hashes, team emails, bundles and the secrets key: it is this user's alone.
 * The directory (and `blobs/` with its folders) is 0700, every file in it 0600. A directory made by an
 * older version (0755 folders, 0644 files) is tightened at start; the caller notes what was changed.
 * Only a directory whose every entry is this user's own is used: another user (in a world-writable folder)
 * could have planted its secrets key or database, kept open to read, and a chmod would not take that back.
 */
import { chmodSync, lstatSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** The data directory, or an entry in it, belongs to another user: never used, never chowned. */
export class DataDirOwnerError extends Error {
  override name = "DataDirOwnerError";
  constructor(path: string, owner: number, self: number) {
    super(
      `${path} belongs to another user (uid ${owner}, not ${self}): ext does not use a data directory someone else could have planted; remove it, or give another --data-dir`,
    );
  }
}

/** Throws DataDirOwnerError unless `dir` and everything in it (links not followed) is this user's own. */
export function checkDataDirOwner(dir: string): void {
  if (process.platform === "win32" || !process.getuid) return;
  const self = process.getuid();
  const check = (path: string, depth: number) => {
    let st: ReturnType<typeof lstatSync>;
    try {
      st = lstatSync(path);
    } catch {
      return; // gone meanwhile
    }
    if (st.uid !== self) throw new DataDirOwnerError(path, st.uid, self);
    if (st.isDirectory() && depth < 3) for (const name of readdirSync(path)) check(join(path, name), depth + 1);
  };
  check(dir, 0);
}

/**
 * Creates `dir` (0700) if missing and returns the paths inside whose modes it had to tighten; throws
 * DataDirOwnerError, before changing anything, when something there is another user's.
 */
export function makeDataDirPrivate(dir: string): string[] {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  checkDataDirOwner(dir);
  const fixed: string[] = [];
  // Windows reports no POSIX modes (chmod only toggles read-only): its ACLs are not ours to change.
  if (process.platform === "win32") return fixed;
  const tighten = (path: string, depth: number) => {
    let st: ReturnType<typeof lstatSync>;
    try {
      st = lstatSync(path);
    } catch {
      return; // gone meanwhile
    }
    // Links are neither followed nor changed (chmod would change their target).
    if (st.isSymbolicLink()) return;
    const want = st.isDirectory() ? PRIVATE_DIR_MODE : PRIVATE_FILE_MODE;
    if ((st.mode & 0o077) !== 0) {
      chmodSync(path, (st.mode & 0o700) | (want & 0o700));
      fixed.push(path);
    }
    // blobs/objects/<id>, blobs/tmp/<file>: nothing deeper is ours.
    if (st.isDirectory() && depth < 3) for (const name of readdirSync(path)) tighten(join(path, name), depth + 1);
  };
  tighten(dir, 0);
  return fixed;
}
