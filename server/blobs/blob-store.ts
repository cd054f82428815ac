/**
 * Content files (version bundles) on the filesystem. A blob is written under `tmp/`, fsynced, then renamed
 * into `objects/` — the rename is atomic, so a blob is either whole or absent. SQLite rows point to blobs
 * by id; `sweep()` removes what no row references (crash leftovers) and every temp file.
 */

import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "../base/crypto";

const BLOB_ID = /^blob_[0-9a-z]{26}$/;

export class BlobStore {
  readonly objectsDir: string;
  readonly tmpDir: string;
  private tmpCounter = 0;

  constructor(readonly root: string) {
    this.objectsDir = join(root, "objects");
    this.tmpDir = join(root, "tmp");
    mkdirSync(this.objectsDir, { recursive: true, mode: 0o700 });
    mkdirSync(this.tmpDir, { recursive: true, mode: 0o700 });
  }

  /** A fresh path inside tmp/ (same filesystem as objects/, so the final rename is atomic). */
  tempPath(label = "upload"): string {
    return join(
      this.tmpDir,
      `${label}-${process.pid}-${randomBytes(6).toString("hex")}-${(this.tmpCounter++).toString(36)}`,
    );
  }

  pathOf(id: string): string {
    if (!BLOB_ID.test(id)) throw new Error(`not a blob id: ${id}`);
    return join(this.objectsDir, id);
  }

  /** Makes a finished temp file durable and moves it under `id`. */
  commit(tempFile: string, id: string): void {
    const fd = openSync(tempFile, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tempFile, this.pathOf(id));
    // fsync the directory so the rename itself survives a crash.
    const dirFd = openSync(this.objectsDir, "r");
    try {
      fsyncSync(dirFd);
    } finally {
      closeSync(dirFd);
    }
  }

  exists(id: string): boolean {
    try {
      return statSync(this.pathOf(id)).isFile();
    } catch {
      return false;
    }
  }

  size(id: string): number {
    return statSync(this.pathOf(id)).size;
  }

  delete(id: string): void {
    rmSync(this.pathOf(id), { force: true });
  }

  discard(tempFile: string): void {
    rmSync(tempFile, { force: true });
  }

  list(): string[] {
    return readdirSync(this.objectsDir).filter((f) => BLOB_ID.test(f));
  }

  /** Removes every temp file and every blob `isReferenced` does not claim. Returns what was removed. */
  sweep(isReferenced: (id: string) => boolean): { temps: number; blobs: string[] } {
    const temps = readdirSync(this.tmpDir);
    for (const f of temps) rmSync(join(this.tmpDir, f), { force: true, recursive: true });
    const strays = this.list().filter((id) => !isReferenced(id));
    for (const id of strays) this.delete(id);
    // Anything else in objects/ (a half-renamed name cannot exist, but be strict) is left alone.
    return { temps: temps.length, blobs: strays };
  }

  /** Deletes every blob and temp file (control-plane reset). */
  clear(): void {
    // Entry by entry, keeping the directories: a reset with nothing stored (most tests) costs two directory
    // reads. A directory removed from outside is made again.
    for (const dir of [this.objectsDir, this.tmpDir]) {
      for (const f of entriesOrCreate(dir)) rmSync(join(dir, f), { recursive: true, force: true });
    }
  }
}

/** The directory's entries; a missing directory is created (and has none). */
function entriesOrCreate(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return [];
  }
}
