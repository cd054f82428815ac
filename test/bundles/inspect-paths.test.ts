/**
 * Archive names that resolve to the same file on extraction, and entry types tar-stream does not know, must
 * not slip past inspection. The tars are written byte by byte here (ustar headers), so nothing in the
 * project's own writers can tidy the names up first.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { DEFAULT_BUNDLE_LIMITS } from "../../server/bundles/bundle-limits";
import { inspectBundle } from "../../server/bundles/inspect";
import { normaliseArchivePath } from "../../server/bundles/manifest";

const dir = mkdtempSync(join(tmpdir(), "ext-paths-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** One ustar header + data block for a file named `name` with `typeflag` ("0" = regular file). */
function tarEntry(name: string, data: string, typeflag = "0"): Buffer {
  const body = Buffer.from(data);
  const header = Buffer.alloc(512);
  header.write(name, 0, 100, "utf8");
  header.write("0000644\0", 100);
  header.write("0000000\0", 108);
  header.write("0000000\0", 116);
  header.write(`${body.length.toString(8).padStart(11, "0")}\0`, 124);
  header.write("00000000000\0", 136);
  header.write("        ", 148); // checksum field counts as spaces while summing
  header.write(typeflag, 156);
  header.write("ustar\0", 257);
  header.write("00", 263);
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148);
  const padded = Buffer.alloc(Math.ceil(body.length / 512) * 512);
  body.copy(padded);
  return Buffer.concat([header, padded]);
}

let n = 0;
function inspect(entries: Buffer[]) {
  const file = join(dir, `p${n++}.tar.gz`);
  writeFileSync(file, gzipSync(Buffer.concat([...entries, Buffer.alloc(1024)])));
  return inspectBundle(file, DEFAULT_BUNDLE_LIMITS);
}

describe("archive names", () => {
  test("resolve like extraction does: empty and '.' segments dropped, backslash a separator", () => {
    expect(normaliseArchivePath(".//manifest.json")).toBe("manifest.json");
    expect(normaliseArchivePath("./layer/./a.js")).toBe("layer/a.js");
    expect(normaliseArchivePath("layer//a.js")).toBe("layer/a.js");
    expect(normaliseArchivePath("layer\\a.js")).toBe("layer/a.js");
  });

  test("a second manifest hidden as .//manifest.json is a duplicate, not an unchecked file", async () => {
    const { problems } = await inspect([
      tarEntry("manifest.json", "{}"),
      tarEntry(".//manifest.json", JSON.stringify({ allowHosts: Array(500).fill("h") })),
    ]);
    expect(problems).toContainEqual(
      expect.objectContaining({ path: "manifest.json", message: expect.stringContaining("duplicate entry") }),
    );
  });

  test("layer//x.js and layer/./x.js are the same file: a duplicate", async () => {
    const { problems } = await inspect([
      tarEntry("manifest.json", "{}"),
      tarEntry("layer//x.js", "a"),
      tarEntry("layer/./x.js", "b"),
    ]);
    expect(problems).toContainEqual(
      expect.objectContaining({ path: "layer/x.js", message: expect.stringContaining("duplicate entry") }),
    );
  });

  test("a sound path with a backslash or a trailing / is not a file Linux would open, even if the resolved name exists", async () => {
    const sound = `ID3${"\0".repeat(29)}`;
    for (const file of ["sounds\\a.mp3", "sounds/a.mp3/"]) {
      const { problems } = await inspect([
        tarEntry("manifest.json", JSON.stringify({ sounds: [{ name: "a", file }] })),
        tarEntry("sounds/a.mp3", sound),
      ]);
      expect(problems).toEqual([
        {
          path: file,
          field: "sounds[0].file",
          message: `${file}: not a file path inside the archive (folders are separated by /, and a file path does not end in /)`,
        },
      ]);
    }
    const { problems } = await inspect([
      tarEntry("manifest.json", JSON.stringify({ sounds: [{ name: "a", file: "./sounds//a.mp3" }] })),
      tarEntry("sounds/a.mp3", sound),
    ]);
    expect(problems).toEqual([]);
  });

  test("a manifest.json that is a directory is said to be one, once, not also missing", async () => {
    const { problems } = await inspect([tarEntry("manifest.json/", "", "5"), tarEntry("layer/x.js", "a")]);
    expect(problems).toEqual([
      { path: "manifest.json", message: "manifest.json is a directory in the archive; it must be a file" },
    ]);
  });

  test("a clean archive with ./ prefixes is still valid", async () => {
    const { problems } = await inspect([tarEntry("./manifest.json", "{}"), tarEntry("./layer/x.js", "a")]);
    expect(problems).toEqual([]);
  });
});

describe("entry types", () => {
  test("a GNU sparse entry ('S') is refused, not read as a file", async () => {
    const { problems } = await inspect([tarEntry("manifest.json", "{}"), tarEntry("layer/sparse.js", "abc", "S")]);
    expect(problems).toContainEqual(
      expect.objectContaining({ path: "layer/sparse.js", message: expect.stringContaining("GNU sparse file") }),
    );
  });
});
