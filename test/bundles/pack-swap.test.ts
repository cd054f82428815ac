/**
 * A file swapped between the listing and the packing (a link to another user's file, or another file moved
 * into its place) is refused, never packed: the file is opened without following links and must be the one
 * that was listed (device, inode, size).
 */
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PackError, planPack, writePack } from "../../tools/deploy/pack";

const root = mkdtempSync(join(tmpdir(), "ext-pack-swap-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const SECRET = "another user's private key material";

function outputDir(name: string): string {
  const dir = join(root, name);
  mkdirSync(dir);
  writeFileSync(join(dir, "manifest.json"), '{"name":"x"}');
  writeFileSync(join(dir, "main.js"), "console.log(1);\n");
  writeFileSync(join(root, `${name}.secret`), SECRET, { mode: 0o600 });
  return dir;
}

test("a symbolic link swapped in after the listing: refused naming the file", async () => {
  const dir = outputDir("link");
  const plan = planPack(dir);
  rmSync(join(dir, "main.js"));
  symlinkSync(join(root, "link.secret"), join(dir, "main.js"));
  const refusal = await writePack(plan, join(root, "link.tar.gz")).catch((e: Error) => e);
  expect(refusal).toBeInstanceOf(PackError);
  expect((refusal as Error).message).toBe(
    "main.js changed while it was being packed (is a symbolic link (links are not followed)); nothing was uploaded: run the deploy again",
  );
});

test("another regular file of the same size moved into its place: refused, as another file is there now", async () => {
  const dir = outputDir("moved");
  writeFileSync(join(root, "moved.other"), "console.log(2);\n");
  const plan = planPack(dir);
  renameSync(join(root, "moved.other"), join(dir, "main.js"));
  const refusal = await writePack(plan, join(root, "moved.tar.gz")).catch((e: Error) => e);
  expect((refusal as Error).message).toContain("main.js changed while it was being packed (another file is there now)");
});

test("a file that grew since the listing: refused with both sizes", async () => {
  const dir = outputDir("grown");
  const plan = planPack(dir);
  writeFileSync(join(dir, "main.js"), "console.log(1);\nconsole.log(3);\n", { flag: "r+" });
  const refusal = await writePack(plan, join(root, "grown.tar.gz")).catch((e: Error) => e);
  expect((refusal as Error).message).toContain("(its size went from 16 to 32 bytes)");
});

test("an unchanged tree packs as before", async () => {
  const dir = outputDir("same");
  const result = await writePack(planPack(dir), join(root, "same.tar.gz"));
  expect(result.files.map((f) => f.path)).toEqual(["main.js", "manifest.json"]);
});
