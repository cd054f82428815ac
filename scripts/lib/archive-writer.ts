/**
 * Writes arbitrary .tar.gz archives entry by entry — including the unsafe kinds (absolute paths, "..",
 * links, devices) the packer refuses — for the sample bundles (scripts/make-sample-bundles.ts) and tests.
 * Large contents are produced chunk by chunk, never whole in memory. Lives outside src/: the server never
 * writes archives.
 */
import { createWriteStream } from "node:fs";
import { pipeline } from "node:stream/promises";
import { createGzip } from "node:zlib";
import tar from "tar-stream";
import type { AudioFormat } from "../../server/bundles/audio-formats";

type EntryType = "file" | "directory" | "symlink" | "link" | "character-device" | "block-device" | "fifo";

export interface RawEntry {
  name: string;
  type?: EntryType;
  /** Small content given whole. */
  data?: Buffer | string;
  /**
   * Large content: `size` bytes, produced chunk by chunk. "random" (a seeded PRNG, so output is reproducible)
   * does not compress; "zero" compresses ~1000:1; "sparse" (4 random bytes in every 256) ~30:1, under the
   * inspection's ratio cap, for archives that are large once uncompressed without being bombs.
   */
  generated?: { size: number; fill: "random" | "zero" | "sparse"; prefix?: Buffer };
  linkname?: string;
  /** Extra PAX records. Any (even `{}`) forces a PAX header, which carries the name verbatim: a NUL included. */
  pax?: Record<string, string>;
}

const FIXED_MTIME = new Date(946_684_800_000);
const CHUNK = 64 * 1024;

/** xorshift32: deterministic "random" bytes, so generated samples are identical run to run. */
export function pseudoRandomBytes(size: number, seed = 0x9e3779b9): Buffer {
  const out = Buffer.allocUnsafe(size);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < size; i += 4) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out.writeUInt32LE(x, Math.min(i, size - 4));
  }
  return out;
}

/** Zeros with 4 pseudo-random bytes at the start of every 256. */
function sparseBytes(size: number, seed: number): Buffer {
  const out = Buffer.alloc(size);
  const noise = pseudoRandomBytes(Math.ceil(size / 256) * 4, seed);
  for (let i = 0, j = 0; i < size; i += 256, j += 4) noise.copy(out, i, j, j + Math.min(4, size - i));
  return out;
}

function* chunks(gen: NonNullable<RawEntry["generated"]>): Generator<Buffer> {
  let left = gen.size;
  let seed = 0x12345678;
  if (gen.prefix) {
    yield gen.prefix.subarray(0, left);
    left -= Math.min(left, gen.prefix.length);
  }
  while (left > 0) {
    const n = Math.min(CHUNK, left);
    yield gen.fill === "zero"
      ? Buffer.alloc(n)
      : gen.fill === "sparse"
        ? sparseBytes(n, seed++)
        : pseudoRandomBytes(n, seed++);
    left -= n;
  }
}

export async function writeTarGz(entries: Iterable<RawEntry>, outFile: string, gzipLevel = 6): Promise<void> {
  const pack = tar.pack();
  const written = pipeline(pack, createGzip({ level: gzipLevel }), createWriteStream(outFile));
  for (const e of entries) {
    const type = e.type ?? "file";
    const data = e.data === undefined ? undefined : Buffer.from(e.data);
    const size = type === "file" ? (data?.length ?? e.generated?.size ?? 0) : 0;
    const header = {
      name: e.name,
      type,
      size,
      mode: type === "directory" ? 0o755 : 0o644,
      mtime: FIXED_MTIME,
      uid: 0,
      gid: 0,
      linkname: e.linkname ?? "",
      ...(e.pax ? { pax: e.pax } : {}),
    };
    await new Promise<void>((resolve, reject) => {
      const sink = pack.entry(header, (err) => (err ? reject(err) : resolve(undefined)));
      void (async () => {
        if (type === "file" && data) sink.write(data);
        else if (type === "file" && e.generated) {
          for (const c of chunks(e.generated))
            if (!sink.write(c)) await new Promise((r) => sink.once("drain", () => r(undefined)));
        }
        (sink as unknown as { end(): void }).end();
      })().catch(reject);
    });
  }
  pack.finalize();
  await written;
}

/** A minimal file of `format`: the right leading bytes, then filler up to `size`. */
export function audioHeader(format: AudioFormat): Buffer {
  switch (format) {
    case "MP3":
      return Buffer.from([0x49, 0x44, 0x33, 0x03, 0, 0, 0, 0, 0, 0, 0xff, 0xfb, 0x90, 0x64]);
    case "WAV":
      return Buffer.concat([Buffer.from("RIFF"), Buffer.from([0x24, 0, 0, 0]), Buffer.from("WAVEfmt ")]);
    case "OGG":
      return Buffer.from("OggS\0\x02\0\0\0\0\0\0\0\0", "latin1");
    case "WebM":
      return Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81, 0x01]);
    case "M4A":
      return Buffer.concat([Buffer.from([0, 0, 0, 0x20]), Buffer.from("ftypM4A \0\0\0\0")]);
    case "AAC":
      return Buffer.from([0xff, 0xf1, 0x50, 0x80, 0x02, 0x1f, 0xfc]);
    case "FLAC":
      return Buffer.from("fLaC\0\0\0\x22", "latin1");
  }
}

export function audioFile(format: AudioFormat, size = 512): Buffer {
  const head = audioHeader(format);
  return Buffer.concat([head, pseudoRandomBytes(Math.max(0, size - head.length), size)]);
}
