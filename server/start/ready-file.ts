/**
 * `--ready-file`: a JSON file a waiting script polls for, often in a shared folder such as /tmp. Another
 * local user may have put something at (or beside) that path first, so it is written under a random name
 * that must not exist yet and is never a followed symlink (mode 0600), then renamed into place; a stale
 * file that cannot be removed stops the start with one line instead of letting a reader trust it.
 */
import { readFileSync, rmSync } from "node:fs";
import { writePrivateFile } from "../../common/files/private-file";

/** The ready file cannot be removed or written: a one-line start-up failure naming the path. */
export class ReadyFileError extends Error {
  override name = "ReadyFileError";
}

const reason = (e: unknown) => {
  const code = (e as NodeJS.ErrnoException).code ?? "";
  return ["EACCES", "EPERM", "EFAULT"].includes(code) ? "permission denied" : code || "it cannot be written";
};

/** Removes a file an earlier run left, so nobody waiting reads its URL; refuses when it cannot be removed. */
export function removeStaleReadyFile(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch (e) {
    throw new ReadyFileError(
      `--ready-file ${path}: a file already there cannot be removed (${reason(e)}; another user's?); remove it, or give a path in a folder only you can write`,
    );
  }
}

/** Written whole under a fresh random name, then renamed: a reader never sees half a file, nor someone else's. */
export function writeReadyFile(path: string, text: string): void {
  try {
    // It describes this process: a crash that could lose it ends the process too (no flush to disk).
    writePrivateFile(path, text, { durable: false });
  } catch (e) {
    throw new ReadyFileError(`--ready-file ${path}: cannot write it (${reason(e)})`);
  }
}

/** Removed on stop, unless another emulator has written its own there since. */
export function removeReadyFile(path: string, text: string): void {
  try {
    if (readFileSync(path, "utf8") === text) rmSync(path, { force: true });
  } catch {
    // Already gone (or unreadable): nothing of ours to remove.
  }
}
