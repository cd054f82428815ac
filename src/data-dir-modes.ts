/**
 * The data directory holds key hashes, team emails, bundles and the secrets key: it is this user's alone.
 * The directory (and `blobs/` with its folders) is 0700, every file in it 0600. A directory made by an
 * older version (0755 folders, 0644 files) is tightened at start; the caller notes what was changed.
 */
import { chmodSync, lstatSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Creates `dir` (0700) if missing and returns the paths inside whose modes it had to tighten. */
export function makeDataDirPrivate(dir: string): string[] {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
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
