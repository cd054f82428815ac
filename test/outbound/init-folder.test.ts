/**
 * `ext init DIR` writes the project's files, the sample test and package.json among them, which the owner
 * then runs (`npm test`). Into a folder every user may write, someone else could change them first: such a
 * folder is refused (another user's own folder too: test/binary/outbound-two-users.slow.test.ts). A new
 * folder, or one only the owner writes, gets the files, each 0644 under the usual umask (project sources).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../helpers/run-cli";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "ext-init-folder-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("a folder every user may write is refused, and nothing is written", async () => {
  const shared = join(dir, "shared");
  mkdirSync(shared);
  chmodSync(shared, 0o777);
  const r = await runCli(["init", shared]);
  expect(r.stderr).toContain(`${shared} can be written by every user of this machine`);
  expect(r.code).toBe(2);
  expect(readdirSync(shared)).toEqual([]);
});

test("a new folder gets the files, with the umask's mode", async () => {
  const fresh = join(dir, "fresh");
  const r = await runCli(["init", fresh]);
  expect(r.code).toBe(0);
  expect(existsSync(join(fresh, "manifest.json"))).toBe(true);
  expect(statSync(join(fresh, "package.json")).mode & 0o777).toBe(0o666 & ~process.umask());
});
