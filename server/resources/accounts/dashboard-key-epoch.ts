/**
 * The dashboard keys' epoch: a number every reset moves, part of what a dashboard key is derived from, so a
 * reset (which wipes the rows that said a key was revoked) never makes an earlier key again. Kept in the data
 * directory (`dashboard-keys.epoch`, a private file: common/files/private-file.ts) so a restart keeps it; in memory for
 * `--memory`.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { writePrivateFile } from "../../../common/files/private-file";

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
  // Read on first use, not by every start: most starts never make a dashboard key or reset.
  let epoch: number | undefined;
  return {
    current: () => {
      epoch ??= readEpoch(path);
      return epoch;
    },
    next: () => {
      epoch = (epoch ?? readEpoch(path)) + 1;
      writePrivateFile(path, `${epoch}\n`);
    },
  };
}
