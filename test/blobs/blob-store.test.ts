/** BlobStore.clear(): what a reset does to the bundle files. */
import { afterEach, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BlobStore } from "../../server/blobs/blob-store";

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});
function store(): BlobStore {
  const root = mkdtempSync(join(tmpdir(), "ext-blob-store-"));
  roots.push(root);
  return new BlobStore(root);
}

test("clear() empties objects/ and tmp/ (files and directories alike) and keeps both directories", () => {
  const s = store();
  const temp = s.tempPath("x");
  writeFileSync(temp, "bundle");
  s.commit(temp, "blob_0123456789abcdefghijklmnop");
  writeFileSync(s.tempPath("y"), "half");
  mkdirSync(join(s.tmpDir, "leftover-dir"));
  s.clear();
  expect(readdirSync(s.objectsDir)).toEqual([]);
  expect(readdirSync(s.tmpDir)).toEqual([]);
});

test("clear() makes a directory removed from outside again", () => {
  const s = store();
  rmSync(s.root, { recursive: true });
  s.clear();
  expect(existsSync(s.objectsDir) && existsSync(s.tmpDir)).toBe(true);
  expect(s.list()).toEqual([]);
});
