/**
 * Writes tar archives block by block, with every header field under the caller's control: the hostile
 * corpus (scripts/lib/hostile-corpus.ts) needs headers no well-behaved writer produces (global PAX headers,
 * GNU sparse, base-256 and negative sizes, bad checksums, data after the end marker). Lives outside src/:
 * the server never writes archives.
 */

export interface RawHeader {
  name: string | Buffer;
  /** One character: "0" file, "5" directory, "x" PAX, "g" global PAX, "L" GNU long name, "S" sparse… */
  typeflag?: string;
  size?: number;
  /** The 12 bytes of the size field, verbatim (base-256, non-octal, negative…); overrides `size`. */
  sizeField?: Buffer;
  /** "posix" (ustar\0 00, the default), "gnu" (ustar  \0) or "v7" (no magic). */
  format?: "posix" | "gnu" | "v7";
  prefix?: string;
  linkname?: string;
  /** Added to the correct checksum: anything but 0 makes it wrong. */
  checksumOffset?: number;
  /** Raw bytes written at an offset after the rest (e.g. GNU incremental data at 345). */
  patch?: { offset: number; bytes: Buffer };
}

const octal = (n: number, width: number) => `${n.toString(8).padStart(width - 1, "0")}\0`;

export function header(h: RawHeader): Buffer {
  const block = Buffer.alloc(512);
  const name = Buffer.from(h.name);
  name.copy(block, 0, 0, Math.min(100, name.length));
  block.write(octal(h.typeflag === "5" ? 0o755 : 0o644, 8), 100, "latin1");
  block.write(octal(0, 8), 108, "latin1");
  block.write(octal(0, 8), 116, "latin1");
  if (h.sizeField) h.sizeField.copy(block, 124, 0, 12);
  else block.write(octal(h.size ?? 0, 12), 124, "latin1");
  block.write(octal(946_684_800, 12), 136, "latin1");
  block.write(h.typeflag ?? "0", 156, "latin1");
  if (h.linkname) block.write(h.linkname, 157, 100, "utf8");
  const format = h.format ?? "posix";
  if (format === "posix") block.write("ustar\x0000", 257, "latin1");
  if (format === "gnu") block.write("ustar  \x00", 257, "latin1");
  if (format !== "v7") {
    block.write("root", 265, "latin1");
    block.write("root", 297, "latin1");
    block.write(octal(0, 8), 329, "latin1");
    block.write(octal(0, 8), 337, "latin1");
  }
  if (h.prefix) block.write(h.prefix, 345, 155, "utf8");
  if (h.patch) h.patch.bytes.copy(block, h.patch.offset);
  block.fill(0x20, 148, 156);
  let sum = 0;
  for (const b of block) sum += b;
  block.write(`${octal(sum + (h.checksumOffset ?? 0), 7)} `, 148, "latin1");
  return block;
}

/** Content padded to whole blocks. */
export function blocks(data: Buffer): Buffer {
  const out = Buffer.alloc(Math.ceil(data.length / 512) * 512);
  data.copy(out);
  return out;
}

/** A header and its content (size taken from the content unless the header says otherwise). */
export function entry(h: RawHeader, data: Buffer | string = Buffer.alloc(0)): Buffer {
  const body = Buffer.from(data);
  return Buffer.concat([header({ size: body.length, ...h }), blocks(body)]);
}

/** PAX records ("LEN key=value\n"), each length counting itself. */
export function paxRecords(records: [string, string | Buffer][]): Buffer {
  return Buffer.concat(
    records.map(([key, value]) => {
      const body = Buffer.concat([Buffer.from(` ${key}=`), Buffer.from(value), Buffer.from("\n")]);
      let len = body.length + 1;
      while (String(len).length + body.length !== len) len = String(len).length + body.length;
      return Buffer.concat([Buffer.from(String(len)), body]);
    }),
  );
}

/** A PAX extended header (typeflag x, or g for a global one) carrying these records. */
export function pax(records: [string, string | Buffer][], typeflag: "x" | "g" = "x"): Buffer {
  return entry({ name: typeflag === "g" ? "pax_global_header" : "PaxHeaders/entry", typeflag }, paxRecords(records));
}

/** A GNU long-name header (typeflag L) for the entry after it. */
export function gnuLongName(name: string | Buffer): Buffer {
  return entry(
    { name: "././@LongLink", typeflag: "L", format: "gnu" },
    Buffer.concat([Buffer.from(name), Buffer.alloc(1)]),
  );
}

/** The end-of-archive marker: two zero blocks. */
export const END = Buffer.alloc(1024);

/** A size field in base-256: 0x80 then the value big-endian (0xff… for a negative one). */
export function base256Size(n: bigint): Buffer {
  const field = Buffer.alloc(12, n < 0n ? 0xff : 0);
  let v = n < 0n ? (1n << 88n) + n : n;
  for (let i = 11; i > 0; i--, v >>= 8n) field[i] = Number(v & 0xffn);
  if (n >= 0n) field[0] = 0x80;
  return field;
}
