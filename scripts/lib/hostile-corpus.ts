/**
 * The hostile-archive corpus: every way a bundle has been found (or is known) to fool an inspector, each
 * with the refusal the inspection must give. Generated, never committed (scripts/make-hostile-corpus.ts
 * writes them out); the tests build them in memory. Also the real-world shapes that must stay accepted
 * (GNU tar's long names and PAX headers, macOS bsdtar's xattr headers and AppleDouble `._` files).
 */
import { createGzip, gzipSync } from "node:zlib";
import { base256Size, END, entry, gnuLongName, header, pax } from "./raw-tar";

export interface CorpusCase {
  /** File name when written out (scripts/make-hostile-corpus.ts). */
  file: string;
  description: string;
  /** The refusal: a problem at this path whose message matches (absent for cases that must be accepted). */
  refused?: { path: string | RegExp; message: RegExp };
  /** The .tar.gz bytes. */
  build(): Promise<Buffer>;
}

const MANIFEST = entry({ name: "manifest.json" }, "{}\n");
const LAYER = entry({ name: "layer/index.js" }, "export default 1;\n");
/** A tar of a minimal valid bundle around `middle`, gzipped. */
const around = (...middle: Buffer[]) => gzipSync(Buffer.concat([MANIFEST, ...middle, LAYER, END]));
const sync = (bytes: () => Buffer) => async () => bytes();

/** Gzips parts produced one at a time (a bomb's gigabytes are never in memory). */
async function gzipParts(parts: Iterable<Buffer>): Promise<Buffer> {
  const gz = createGzip({ level: 9 });
  const out: Buffer[] = [];
  gz.on("data", (c: Buffer) => out.push(c));
  const done = new Promise((resolve, reject) => gz.once("end", resolve).once("error", reject));
  for (const part of parts) if (!gz.write(part)) await new Promise((r) => gz.once("drain", r));
  gz.end();
  await done;
  return Buffer.concat(out);
}

function* zeros(bytes: number): Generator<Buffer> {
  const chunk = Buffer.alloc(1024 * 1024);
  for (let left = bytes; left > 0; left -= chunk.length) yield left >= chunk.length ? chunk : chunk.subarray(0, left);
}

const MB = 1024 * 1024;
const ARCHIVE = "(archive)";
const bigManifest = (text: string) => gzipSync(Buffer.concat([entry({ name: "manifest.json" }, text), LAYER, END]));

export const HOSTILE_CORPUS: CorpusCase[] = [
  // Parser differentials: what GNU tar or tarfile would apply and a lax inspector would not.
  {
    file: "pax-global-dotdot.tar.gz",
    description: "A PAX global header (g) with path=../x: GNU tar applies it to the entries after it.",
    refused: { path: "pax_global_header", message: /PAX global header/ },
    build: sync(() => around(pax([["path", "../x"]], "g"), entry({ name: "layer/a.js" }, "1"))),
  },
  {
    file: "pax-global-absolute.tar.gz",
    description: "A PAX global header with an absolute path.",
    refused: { path: "pax_global_header", message: /PAX global header/ },
    build: sync(() => around(pax([["path", "/tmp/evil.js"]], "g"), entry({ name: "layer/a.js" }, "1"))),
  },
  {
    file: "gnu-sparse-name-dotdot.tar.gz",
    description: "GNU.sparse.name=../evil.js in a PAX header: GNU tar and tarfile rename the entry with it.",
    refused: { path: ARCHIVE, message: /PAX key GNU\.sparse\.name is not accepted/ },
    build: sync(() => around(pax([["GNU.sparse.name", "../evil.js"]]), entry({ name: "layer/a.js" }, "1"))),
  },
  {
    file: "gnu-sparse-name-manifest.tar.gz",
    description: "GNU.sparse.name=manifest.json: a second manifest with 500 sounds the inspector never read.",
    refused: { path: ARCHIVE, message: /GNU\.sparse\.name/ },
    build: sync(() =>
      around(
        pax([["GNU.sparse.name", "manifest.json"]]),
        entry(
          { name: "layer/notes.json" },
          JSON.stringify({ sounds: Array.from({ length: 500 }, (_, i) => ({ name: `s${i}`, file: `s${i}.mp3` })) }),
        ),
      ),
    ),
  },
  {
    file: "gnu-sparse-1.0.tar.gz",
    description: "GNU sparse 1.0: a few hundred bytes that extract as a 10 GiB file.",
    refused: { path: ARCHIVE, message: /GNU\.sparse\.(major|minor|realsize|name)/ },
    build: sync(() =>
      around(
        pax([
          ["GNU.sparse.major", "1"],
          ["GNU.sparse.minor", "0"],
          ["GNU.sparse.name", "layer/huge.bin"],
          ["GNU.sparse.realsize", String(10 * 1024 * MB)],
        ]),
        entry({ name: "layer/GNUSparseFile.0/huge.bin" }, "1\n10737418239\n1\n\0"),
      ),
    ),
  },
  {
    file: "gnu-sparse-typeflag.tar.gz",
    description: "An old GNU sparse entry (typeflag S).",
    refused: { path: "layer/sparse.js", message: /GNU sparse file/ },
    build: sync(() => around(entry({ name: "layer/sparse.js", typeflag: "S", format: "gnu" }, "abc"))),
  },
  {
    file: "size-base256-negative.tar.gz",
    description: "A base-256 size of -1: GNU tar says out of range, a lax parser reads an empty file.",
    refused: { path: "layer/neg.js", message: /size field in base-256 \(negative\)/ },
    build: sync(() => around(header({ name: "layer/neg.js", sizeField: base256Size(-1n) }))),
  },
  {
    file: "size-base256-positive.tar.gz",
    description: "A base-256 size for a small file: not the canonical octal.",
    refused: { path: "layer/b256.js", message: /size field in base-256/ },
    build: sync(() => around(entry({ name: "layer/b256.js", sizeField: base256Size(3n) }, "abc"))),
  },
  {
    file: "size-not-octal.tar.gz",
    description: "A size field with a non-octal digit (parseInt would stop at it).",
    refused: { path: "layer/x.js", message: /size field is not an octal number/ },
    build: sync(() => around(entry({ name: "layer/x.js", sizeField: Buffer.from("0000000001x\0", "latin1") }, "a"))),
  },
  {
    file: "pax-size-not-canonical.tar.gz",
    description: "A PAX size with a sign (tarfile reads 0, GNU tar refuses).",
    refused: { path: "layer/x.js", message: /not a canonical decimal size/ },
    build: sync(() => around(pax([["size", "+1"]]), entry({ name: "layer/x.js" }, "a"))),
  },
  {
    file: "pax-unknown-key.tar.gz",
    description: "A PAX key outside the allowlist (hdrcharset changes how tarfile decodes names).",
    refused: { path: ARCHIVE, message: /PAX key hdrcharset is not accepted/ },
    build: sync(() => around(pax([["hdrcharset", "BINARY"]]), entry({ name: "layer/x.js" }, "a"))),
  },
  {
    file: "pax-linkpath.tar.gz",
    description: "A PAX linkpath on a file.",
    refused: { path: ARCHIVE, message: /PAX key linkpath/ },
    build: sync(() => around(pax([["linkpath", "/etc/passwd"]]), entry({ name: "layer/x.js" }, "a"))),
  },
  {
    file: "pax-duplicate-key.tar.gz",
    description: "The same PAX key twice in one header.",
    refused: { path: ARCHIVE, message: /given twice/ },
    build: sync(() =>
      around(
        pax([
          ["path", "layer/a.js"],
          ["path", "../evil.js"],
        ]),
        entry({ name: "layer/x.js" }, "a"),
      ),
    ),
  },
  {
    file: "pax-two-headers.tar.gz",
    description: "Two PAX headers before one entry.",
    refused: { path: ARCHIVE, message: /two PAX extended headers/ },
    build: sync(() =>
      around(pax([["path", "layer/a.js"]]), pax([["path", "../evil.js"]]), entry({ name: "layer/x.js" }, "a")),
    ),
  },
  {
    file: "pax-malformed-record.tar.gz",
    description: "A PAX record whose length is wrong.",
    refused: { path: ARCHIVE, message: /malformed PAX/ },
    build: sync(() =>
      around(
        entry({ name: "PaxHeaders/x", typeflag: "x" }, "99 path=layer/a.js\n"),
        entry({ name: "layer/x.js" }, "a"),
      ),
    ),
  },
  {
    file: "pax-and-gnu-long-name.tar.gz",
    description: "A GNU long name and a PAX path for one entry (the tools disagree on which wins).",
    refused: { path: /.*/, message: /both a GNU long name and a PAX path/ },
    build: sync(() =>
      around(gnuLongName("layer/a.js"), pax([["path", "layer/b.js"]]), entry({ name: "layer/x.js" }, "a")),
    ),
  },
  // Memory amplification.
  {
    file: "pax-huge-paths.tar.gz",
    description: "240 entries with 1 MB PAX path names (266 KB compressed).",
    refused: { path: ARCHIVE, message: /PAX extended header of \d+ bytes; the cap is 65536/ },
    build: sync(() =>
      around(
        ...Array.from({ length: 240 }, (_, i) =>
          Buffer.concat([pax([["path", `layer/${"a".repeat(MB)}${i}`]]), entry({ name: `layer/f${i}.js` }, "1")]),
        ),
      ),
    ),
  },
  {
    file: "gnu-long-name-huge.tar.gz",
    description: "A 1 MB GNU long name.",
    refused: { path: ARCHIVE, message: /GNU long name of \d+ bytes; the cap is 1025/ },
    build: sync(() => around(gnuLongName("a".repeat(MB)), entry({ name: "layer/x.js", format: "gnu" }, "a"))),
  },
  {
    file: "path-too-long.tar.gz",
    description: "A 1,025-byte path (PAX).",
    refused: { path: /^layer\/(a\/)+…$/, message: /path longer than 1024 bytes/ },
    build: sync(() => around(pax([["path", `layer/${"a/".repeat(509)}abcd`]]), entry({ name: "layer/x.js" }, "a"))),
  },
  {
    file: "segment-too-long.tar.gz",
    description: "A 256-byte path segment.",
    refused: { path: /^layer\/a+…$/, message: /segment is longer than 255 bytes/ },
    build: sync(() => around(pax([["path", `layer/${"a".repeat(256)}`]]), entry({ name: "layer/x.js" }, "a"))),
  },
  {
    file: "name-not-utf8.tar.gz",
    description: "A name that is not valid UTF-8.",
    refused: { path: /^layer\/.+\.js$/, message: /not valid UTF-8/ },
    build: sync(() =>
      around(
        entry({ name: Buffer.concat([Buffer.from("layer/"), Buffer.from([0xff, 0xfe]), Buffer.from(".js")]) }, "a"),
      ),
    ),
  },
  {
    file: "name-newline.tar.gz",
    description: "A name with a newline (listings lie).",
    refused: { path: "layer/a\nb.js", message: /control character in path/ },
    build: sync(() => around(entry({ name: "layer/a\nb.js" }, "a"))),
  },
  {
    file: "name-bidi-override.tar.gz",
    description: "A right-to-left override (U+202E) in a name: layer/a<RLO>gpj.js lists as layer/ajs.jpg.",
    refused: { path: "layer/a\u202Egpj.js", message: /control character in path/ },
    build: sync(() => around(entry({ name: "layer/a\u202Egpj.js" }, "a"))),
  },
  {
    file: "name-c1-control.tar.gz",
    description: "A C1 control (U+009B, an escape to some terminals) in a name.",
    refused: { path: "layer/a\u009b2J.js", message: /control character in path/ },
    build: sync(() => around(entry({ name: "layer/a\u009b2J.js" }, "a"))),
  },
  {
    file: "manifest-allowhosts-520k.tar.gz",
    description: '{"allowHosts":[1,1,…×520,000]}: ~1 KB compressed, 1 MB of JSON.',
    refused: { path: "manifest.json", message: /holds more than 10000 JSON values/ },
    build: sync(() => bigManifest(`{"allowHosts":[${"1,".repeat(519_999)}1]}`)),
  },
  {
    file: "manifest-2mb.tar.gz",
    description: 'A 2 MB manifest: one message, not also "missing".',
    refused: { path: "manifest.json", message: /larger than 1\.0 MB/ },
    build: sync(() => bigManifest(JSON.stringify({ pad: "x".repeat(2 * MB) }))),
  },
  {
    file: "manifest-deep.tar.gz",
    description: "A manifest nested 100,000 levels deep.",
    refused: { path: "manifest.json", message: /nests deeper than 32 levels/ },
    build: sync(() => bigManifest(`{"a":${"[".repeat(100_000)}${"]".repeat(100_000)}}`)),
  },
  {
    file: "manifest-many-objects.tar.gz",
    description: "A manifest of 300,000 empty objects.",
    refused: { path: "manifest.json", message: /holds more than 10000 JSON values/ },
    build: sync(() => bigManifest(`{"actions":[${"{},".repeat(299_999)}{}]}`)),
  },
  {
    file: "manifest-proto.tar.gz",
    description: "A manifest with a __proto__ key.",
    refused: { path: "manifest.json", message: /__proto__/ },
    build: sync(() => bigManifest(`{"__proto__":{"allowHosts":["evil.example"]},"sounds":[]}`)),
  },
  {
    file: "manifest-many-errors.tar.gz",
    description: "9,000 wrong allowHosts values: the first 100 problems only.",
    refused: { path: ARCHIVE, message: /more than 100 problems/ },
    build: sync(() => bigManifest(`{"allowHosts":[${"1,".repeat(8_999)}1]}`)),
  },
  // Framing tricks: content where the tools would read headers, or headers the tools would not read.
  {
    file: "directory-with-size.tar.gz",
    description: "A directory entry with a size whose 'content' is another header (tarfile reads it as an entry).",
    refused: { path: "layer/d/", message: /directory entry with a size/ },
    build: sync(() => around(entry({ name: "layer/d/", typeflag: "5" }, entry({ name: "../evil.js" }, "x")))),
  },
  {
    file: "file-named-like-directory.tar.gz",
    description: "A typeflag-0 entry named layer/ (a directory to GNU tar, a file to a lax inspector).",
    refused: { path: "layer/d/", message: /file entry named like a directory/ },
    build: sync(() => around(entry({ name: "layer/d/" }, "abc"))),
  },
  {
    file: "pax-path-nul.tar.gz",
    description: "A NUL inside a PAX path: GNU tar cuts the name there (layer/a.js), tarfile keeps all of it.",
    refused: { path: /^layer\/a\.js\0/, message: /NUL byte inside a PAX path/ },
    build: sync(() => around(pax([["path", "layer/a.js\0../../evil.js"]]), entry({ name: "layer/x.js" }, "a"))),
  },
  {
    file: "sound-file-then-directory.tar.gz",
    description:
      "A checked sound, then a directory of the same name: GNU tar replaces the file with the directory, tarfile fails.",
    refused: { path: "sounds/ding.mp3", message: /a file, and also a directory/ },
    build: sync(() =>
      gzipSync(
        Buffer.concat([
          entry({ name: "manifest.json" }, JSON.stringify({ sounds: [{ name: "ding", file: "sounds/ding.mp3" }] })),
          entry({ name: "sounds/ding.mp3" }, Buffer.concat([Buffer.from("ID3"), Buffer.alloc(29)])),
          entry({ name: "sounds/ding.mp3/", typeflag: "5" }),
          END,
        ]),
      ),
    ),
  },
  {
    file: "entry-under-a-file.tar.gz",
    description: "An entry under a path that is a file (layer/a.js/b.js): no tool can extract it.",
    refused: { path: "layer/a.js", message: /a file, and also the folder of layer\/a\.js\/b\.js/ },
    build: sync(() => around(entry({ name: "layer/a.js" }, "1"), entry({ name: "layer/a.js/b.js" }, "2"))),
  },
  {
    file: "v7-header.tar.gz",
    description: "A header with no ustar magic (V7).",
    refused: { path: ARCHIVE, message: /not a POSIX ustar or GNU tar header/ },
    build: sync(() => around(entry({ name: "layer/x.js", format: "v7" }, "a"))),
  },
  {
    file: "gnu-header-prefix-data.tar.gz",
    description: "A GNU header with bytes where POSIX keeps a prefix (tarfile would prepend them).",
    refused: { path: ARCHIVE, message: /GNU header with incremental or sparse data/ },
    build: sync(() =>
      around(entry({ name: "x.js", format: "gnu", patch: { offset: 345, bytes: Buffer.from("..") } }, "a")),
    ),
  },
  {
    file: "hidden-after-end.tar.gz",
    description: "An entry after the end-of-archive marker (GNU tar and tarfile stop at the marker).",
    refused: { path: ARCHIVE, message: /data after the end-of-archive marker/ },
    build: sync(() => gzipSync(Buffer.concat([MANIFEST, LAYER, END, entry({ name: "layer/hidden.js" }, "x"), END]))),
  },
  {
    file: "no-end-marker.tar.gz",
    description: "A tar with no end-of-archive marker.",
    refused: { path: ARCHIVE, message: /no end-of-archive marker/ },
    build: sync(() => gzipSync(Buffer.concat([MANIFEST, LAYER]))),
  },
  {
    file: "dangling-long-name.tar.gz",
    description: "A GNU long name with no entry after it.",
    refused: { path: ARCHIVE, message: /extended header with no entry after it/ },
    build: sync(() => gzipSync(Buffer.concat([MANIFEST, LAYER, gnuLongName("layer/x.js"), END]))),
  },
  {
    file: "contiguous-file.tar.gz",
    description: "A contiguous file (typeflag 7).",
    refused: { path: "layer/c.js", message: /unsupported entry type contiguous-file/ },
    build: sync(() => around(entry({ name: "layer/c.js", typeflag: "7" }, "a"))),
  },
  {
    file: "gnu-long-link.tar.gz",
    description: "A GNU long link name (typeflag K).",
    refused: { path: "././@LongLink", message: /GNU long link name/ },
    build: sync(() =>
      around(
        entry({ name: "././@LongLink", typeflag: "K", format: "gnu" }, "/etc/passwd\0"),
        entry({ name: "layer/l", typeflag: "2", linkname: "x" }),
      ),
    ),
  },
  {
    file: "volume-label.tar.gz",
    description: "A GNU volume label (typeflag V).",
    refused: { path: "label", message: /volume label/ },
    build: sync(() => around(entry({ name: "label", typeflag: "V", format: "gnu" }))),
  },
  {
    file: "many-problems.tar.gz",
    description: "150 absolute paths: the first 100 problems, then the walk stops.",
    refused: { path: ARCHIVE, message: /100 problems found; inspection stopped there/ },
    build: sync(() => around(...Array.from({ length: 150 }, (_, i) => entry({ name: `/abs/${i}.js` }, "x")))),
  },
  // The classes handled before.
  {
    file: "dot-dot.tar.gz",
    description: 'A path climbing out with "..".',
    refused: { path: "layer/../../evil.js", message: /"\.\."/ },
    build: sync(() => around(entry({ name: "layer/../../evil.js" }, "x"))),
  },
  {
    file: "absolute.tar.gz",
    description: "An absolute path.",
    refused: { path: "/tmp/evil.js", message: /absolute path/ },
    build: sync(() => around(entry({ name: "/tmp/evil.js" }, "x"))),
  },
  {
    file: "backslash-dotdot.tar.gz",
    description: "A backslash path climbing out.",
    refused: { path: "layer\\..\\..\\evil.js", message: /"\.\."/ },
    build: sync(() => around(entry({ name: "layer\\..\\..\\evil.js" }, "x"))),
  },
  {
    file: "sound-behind-backslash.tar.gz",
    description:
      "A sound entry named sounds\\ding.mp3: a Windows path to sounds/ding.mp3, but a file at the root named so on Linux.",
    refused: { path: "sounds\\ding.mp3", message: /backslash in path/ },
    build: sync(() =>
      gzipSync(
        Buffer.concat([
          entry({ name: "manifest.json" }, JSON.stringify({ sounds: [{ name: "ding", file: "sounds/ding.mp3" }] })),
          entry({ name: "sounds\\ding.mp3" }, Buffer.concat([Buffer.from("ID3"), Buffer.alloc(29)])),
          END,
        ]),
      ),
    ),
  },
  {
    file: "drive-letter.tar.gz",
    description: "A Windows drive letter.",
    refused: { path: "C:/evil.js", message: /absolute path/ },
    build: sync(() => around(entry({ name: "C:/evil.js" }, "x"))),
  },
  {
    file: "symlink.tar.gz",
    description: "A symbolic link.",
    refused: { path: "layer/passwd", message: /symbolic link/ },
    build: sync(() => around(entry({ name: "layer/passwd", typeflag: "2", linkname: "/etc/passwd" }))),
  },
  {
    file: "hardlink.tar.gz",
    description: "A hard link.",
    refused: { path: "layer/copy.js", message: /hard link/ },
    build: sync(() => around(entry({ name: "layer/copy.js", typeflag: "1", linkname: "manifest.json" }))),
  },
  {
    file: "char-device.tar.gz",
    description: "A character device.",
    refused: { path: "layer/null", message: /character device/ },
    build: sync(() => around(entry({ name: "layer/null", typeflag: "3" }))),
  },
  {
    file: "block-device.tar.gz",
    description: "A block device.",
    refused: { path: "layer/sda", message: /block device/ },
    build: sync(() => around(entry({ name: "layer/sda", typeflag: "4" }))),
  },
  {
    file: "fifo.tar.gz",
    description: "A FIFO.",
    refused: { path: "layer/pipe", message: /FIFO/ },
    build: sync(() => around(entry({ name: "layer/pipe", typeflag: "6" }))),
  },
  {
    file: "duplicate-manifest.tar.gz",
    description: "A second manifest.json as ./manifest.json.",
    refused: { path: "manifest.json", message: /duplicate entry/ },
    build: sync(() => around(entry({ name: "./manifest.json" }, JSON.stringify({ allowHosts: Array(500).fill("h") })))),
  },
  {
    file: "huge-declared-size.tar.gz",
    description: "A header declaring an 8 GiB file in a tiny archive.",
    refused: { path: "layer/huge.bin", message: /over the per-file cap|ends inside this entry/ },
    build: sync(() => around(header({ name: "layer/huge.bin", sizeField: Buffer.from("77777777777\0", "latin1") }))),
  },
  {
    file: "bad-checksum.tar.gz",
    description: "A header whose checksum is wrong.",
    refused: { path: ARCHIVE, message: /bad header checksum/ },
    build: sync(() => around(entry({ name: "layer/x.js", checksumOffset: 1 }, "a"))),
  },
  {
    file: "truncated-gzip.tar.gz",
    description: "A valid archive cut in half.",
    refused: { path: ARCHIVE, message: /corrupt or truncated gzip/ },
    build: sync(() => {
      const gz = around(entry({ name: "layer/r.bin" }, Buffer.alloc(4096, 7)));
      return gz.subarray(0, gz.length >> 1);
    }),
  },
  {
    file: "gzip-trailing-garbage.tar.gz",
    description: "Bytes after the gzip stream.",
    refused: { path: ARCHIVE, message: /corrupt or truncated gzip/ },
    build: sync(() => Buffer.concat([around(), Buffer.from("trailing garbage")])),
  },
  {
    file: "gzip-bomb.tar.gz",
    description: "One file declaring 600 MB of zeros (~600 KB compressed): stopped by the ratio cap.",
    refused: { path: ARCHIVE, message: /gzip bomb\?\); inspection stopped/ },
    build: () => gzipParts([MANIFEST, header({ name: "data/zeros.bin", size: 600 * MB }), ...zeros(600 * MB), END]),
  },
];

/** Real-world shapes that must stay accepted. */
export const ACCEPTED_CORPUS: CorpusCase[] = [
  {
    file: "gnu-long-names.tar.gz",
    description: "GNU tar's format for a 200-byte path: a long-name (L) header and a GNU header.",
    build: sync(() =>
      gzipSync(
        Buffer.concat([
          entry({ name: "manifest.json", format: "gnu" }, "{}"),
          gnuLongName(`layer/${"n".repeat(190)}.js`),
          entry({ name: `layer/${"n".repeat(90)}`, format: "gnu" }, "1"),
          END,
        ]),
      ),
    ),
  },
  {
    file: "posix-pax.tar.gz",
    description: "GNU tar --format=posix: PAX headers with times, a long path and a ustar prefix.",
    build: sync(() =>
      gzipSync(
        Buffer.concat([
          pax([
            ["mtime", "1700000000.5"],
            ["atime", "1700000000.5"],
            ["ctime", "1700000000.5"],
          ]),
          entry({ name: "manifest.json" }, "{}"),
          pax([
            ["path", `layer/${"p".repeat(150)}.js`],
            ["uname", "dév"],
            ["gname", "staff"],
          ]),
          entry({ name: "layer/ppp.js" }, "1"),
          entry({ name: "b.js", prefix: "layer/deep" }, "2"),
          END,
        ]),
      ),
    ),
  },
  {
    file: "gnu-long-name-and-pax-times.tar.gz",
    description:
      "A GNU long name, then a PAX header of times only, then the entry: both apply, as in GNU tar and tarfile.",
    build: sync(() =>
      gzipSync(
        Buffer.concat([
          MANIFEST,
          gnuLongName(`layer/${"q".repeat(120)}.js`),
          pax([["mtime", "1700000000"]]),
          entry({ name: "layer/q.js" }, "1"),
          END,
        ]),
      ),
    ),
  },
  {
    file: "gzip-zero-padding.tar.gz",
    description:
      "Zero bytes after the gzip stream (tape-style padding): ignored by gzip, tarfile and the inspector alike.",
    build: sync(() => Buffer.concat([around(), Buffer.alloc(512)])),
  },
  {
    file: "pax-size.tar.gz",
    description: "A PAX size over a header size of 0: applied, as GNU tar and tarfile apply it.",
    build: sync(() =>
      gzipSync(
        Buffer.concat([
          MANIFEST,
          pax([["size", "5"]]),
          header({ name: "layer/sized.js", size: 0 }),
          Buffer.from("12345".padEnd(512, "\0")),
          END,
        ]),
      ),
    ),
  },
  {
    file: "macos-bsdtar.tar.gz",
    description:
      "What macOS tar writes: ./ entries, xattr PAX headers (binary values too), a creation time, AppleDouble ._ files.",
    build: sync(() =>
      gzipSync(
        Buffer.concat([
          entry({ name: "./", typeflag: "5" }),
          entry(
            { name: "./._manifest.json" },
            Buffer.concat([Buffer.from([0, 5, 0x16, 7, 0, 2, 0, 0]), Buffer.from("Mac OS X        ")]),
          ),
          pax([
            ["LIBARCHIVE.creationtime", "1700000000"],
            ["LIBARCHIVE.xattr.com.apple.provenance", "AQIA"],
            ["SCHILY.xattr.com.apple.provenance", Buffer.from([1, 2, 0, 0xff])],
            ["comment", "made on a Mac"],
            ["charset", "ISO-IR 10646 2000 UTF-8"],
          ]),
          entry({ name: "./manifest.json" }, "{}"),
          entry({ name: "./layer/", typeflag: "5" }),
          entry({ name: "./layer/._index.js" }, "\0\x05\x16\x07"),
          entry({ name: "./layer/index.js" }, "export default 1;\n"),
          END,
        ]),
      ),
    ),
  },
];
