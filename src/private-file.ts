/**
 * A small file written whole and private (0600): under a fresh random name that must not exist yet and is
 * never a followed symlink, then renamed into place, so a reader never sees half of it, and a file or link
 * someone else planted at a predictable name is never written through. The temp file goes if the write fails.
 */
import { randomBytes } from "node:crypto";
import { closeSync, constants, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";

// O_NOFOLLOW does not exist on Windows, where a fresh O_EXCL name is what matters.
const CREATE_NEW = constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | (constants.O_NOFOLLOW ?? 0);

export function writePrivateFile(path: string, text: string): void {
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(8).toString("hex")}.tmp`);
  try {
    const fd = openSync(temp, CREATE_NEW, 0o600);
    try {
      writeSync(fd, text);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (e) {
    rmSync(temp, { force: true });
    throw e;
  }
}
