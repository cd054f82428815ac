/**
 * The dashboard keys' epoch: a number every reset moves, part of what a dashboard key is derived from, so a
 * reset (which wipes the rows that said a key was revoked) never makes an earlier key again. Kept in the data
 * directory (`dashboard-keys.epoch`, 0600, written under a fresh name and renamed into place) so a restart
 * keeps it; in memory for `--memory`.
 */
import { closeSync, constants, openSync, readFileSync, renameSync, writeSync } from "node:fs";
import { join } from "node:path";

export const KEY_EPOCH_FILE = "dashboard-keys.epoch";

export interface KeyEpoch {
  current(): number;
  /** Moves to the next epoch: every dashboard key made before it is never made again. */
  next(): void;
}

export function memoryKeyEpoch(): KeyEpoch {
  let epoch = 0;
  return {
    current: () => epoch,
    next: () => {
      epoch++;
    },
  };
}

/** A file that is missing or holds anything but a small whole number reads as epoch 0. */
function readEpoch(path: string): number {
  try {
    const text = readFileSync(path, "utf8").trim();
    return /^\d{1,15}$/.test(text) ? Number(text) : 0;
  } catch {
    return 0;
  }
}

export function fileKeyEpoch(dataDir: string): KeyEpoch {
  const path = join(dataDir, KEY_EPOCH_FILE);
  let epoch = readEpoch(path);
  return {
    current: () => epoch,
    next: () => {
      epoch++;
      const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
      const fd = openSync(tmp, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | constants.O_NOFOLLOW, 0o600);
      try {
        writeSync(fd, `${epoch}\n`);
      } finally {
        closeSync(fd);
      }
      renameSync(tmp, path);
    },
  };
}
