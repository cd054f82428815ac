/** An uploaded export archive's refusals say what is wrong with the archive, never the server's internals. */
import { afterAll, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readExportArchive } from "../../server/exports/archive";
import { tarOf } from "../helpers/tar-entries";

const dir = mkdtempSync(join(tmpdir(), "ext-archive-refusals-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function* once(bytes: Buffer) {
  yield bytes;
}

test("a bundle entry given twice: refused naming the entry, without errno text or the staging path", async () => {
  const bundle = Buffer.from("not really gzip, but its digest matches its name");
  const name = `bundles/${createHash("sha256").update(bundle).digest("hex")}.tar.gz`;
  const archive = await tarOf([
    ["fixture.json", Buffer.from('{"accounts":[]}')],
    [name, bundle],
    [name, bundle],
  ]);
  const staging = join(dir, "staged");
  const refusal = await readExportArchive(once(archive), staging, "the uploaded archive").catch((e: Error) => e);
  expect((refusal as Error).message).toBe(`the uploaded archive: ${name} appears twice`);
  expect((refusal as Error).message).not.toContain(dir);
});

test("fixture.json given twice is refused the same way", async () => {
  const fixture = Buffer.from('{"accounts":[]}');
  const archive = await tarOf([
    ["fixture.json", fixture],
    ["fixture.json", fixture],
  ]);
  const refusal = await readExportArchive(once(archive), join(dir, "twice"), "the archive").catch((e: Error) => e);
  expect((refusal as Error).message).toBe("the archive: fixture.json appears twice");
});
