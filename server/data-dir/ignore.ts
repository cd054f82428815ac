/**
 * A data directory the emulator creates (`./.ext-data` by default, inside the user's project) holds the
 * database, the bundles and the secrets key: nothing to commit. A `.gitignore` of `*` inside it keeps it
 * out of git without touching the project's own ignore files, as many tools do for their folders.
 */
import { closeSync, constants, openSync, writeSync } from "node:fs";
import { join } from "node:path";

export const IGNORE_FILE = ".gitignore";

/** Writes `<dir>/.gitignore` unless something is already there (never through a link planted there). */
export function ignoreInVersionControl(dir: string): void {
  let fd: number;
  try {
    fd = openSync(
      join(dir, IGNORE_FILE),
      constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | constants.O_NOFOLLOW,
      0o600,
    );
  } catch {
    return; // already there (or not writable): the user's own file, or nothing to do
  }
  try {
    writeSync(fd, "*\n");
  } finally {
    closeSync(fd);
  }
}
