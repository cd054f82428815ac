/**
 * A strict, streaming reader of the tar format, for untrusted bundles. It reads only what GNU tar and
 * Python's tarfile read the same way, and refuses everything else: whatever it yields is what those tools
 * list, so nothing reaches the user's tar that the inspection did not see. Refusals name the entry and the
 * reason. Every buffer it holds is bounded (a header block, one PAX header of at most MAX_PAX_BYTES, one name
 * of at most MAX_PATH_BYTES); file contents stream through.
 *
 * Accepted: POSIX ustar and GNU headers with strict octal numbers and a correct checksum; typeflags 0, \0,
 * 5 (directory) and, reported by the caller as problems, 1, 2, 3, 4, 6, 7; GNU long names (L); one PAX
 * extended header (x) per entry whose keys are all in PAX_IGNORED or PAX_APPLIED; the end-of-archive marker
 * followed by nothing but zeros. Refused: every other typeflag (global headers g, GNU sparse S, long link
 * names K, volume labels, …), GNU.sparse.* and every other PAX key, base-256 and negative sizes, non-UTF-8
 * names, names over the length caps, a NUL inside a PAX path, and data where tar tools would disagree (see the
 * checks below).
 */

/** The longest path accepted, in bytes (as extraction would see it). */
export const MAX_PATH_BYTES = 1024;
/** The longest path segment accepted, in bytes (NAME_MAX on common file systems). */
export const MAX_SEGMENT_BYTES = 255;
/** The largest PAX extended header accepted (room for a path and macOS's extended attributes). */
export const MAX_PAX_BYTES = 64 * 1024;

/** The path a problem with the archive as a whole is reported at. */
export const ARCHIVE_PATH = "(archive)";

/** A refusal: the archive cannot be read further (or must not be). */
export class TarRefusal extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

export type EntryType =
  | "file"
  | "contiguous-file"
  | "directory"
  | "symlink"
  | "link"
  | "character-device"
  | "block-device"
  | "fifo";

export interface TarEntry {
  /** The path as GNU tar applies it (PAX path, else GNU long name, else ustar prefix + name), not normalised. */
  path: string;
  type: EntryType;
  size: number;
}

const TYPES: Record<string, EntryType> = {
  "0": "file",
  "\0": "file",
  "7": "contiguous-file",
  "5": "directory",
  "1": "link",
  "2": "symlink",
  "3": "character-device",
  "4": "block-device",
  "6": "fifo",
};

const REFUSED_TYPES: Record<string, string> = {
  g: "a PAX global header (typeflag g) changes every entry after it; not accepted",
  S: "a GNU sparse file (typeflag S); not accepted",
  K: "a GNU long link name (typeflag K); links are not accepted",
  V: "a GNU volume label (typeflag V); not accepted",
  M: "a GNU multi-volume continuation (typeflag M); not accepted",
  D: "a GNU dump directory (typeflag D); not accepted",
  N: "an old GNU long-name entry (typeflag N); not accepted",
};

/** PAX keys that only carry metadata: read past, never applied. */
const PAX_IGNORED = new Set([
  "mtime",
  "atime",
  "ctime",
  "LIBARCHIVE.creationtime",
  "uid",
  "gid",
  "uname",
  "gname",
  "comment",
  "charset",
]);
const PAX_IGNORED_PREFIXES = ["SCHILY.xattr.", "LIBARCHIVE.xattr."];
/** PAX keys applied, exactly as GNU tar applies them. */
const PAX_APPLIED = new Set(["path", "size"]);

const utf8 = new TextDecoder("utf-8", { fatal: true });
const lossy = new TextDecoder("utf-8");

/** A printable form of raw name bytes for a message: lossy, cut short. */
function shown(bytes: Uint8Array): string {
  const text = lossy.decode(bytes.subarray(0, 100));
  return bytes.length > 100 ? `${text}…` : text;
}

/** Until the first NUL (as both tools read a name field). */
function cString(buf: Buffer, start: number, end: number): Buffer {
  const nul = buf.indexOf(0, start);
  return buf.subarray(start, nul === -1 || nul > end ? end : nul);
}

/** Checks a name's bytes and decodes them; refuses before anything is kept. */
function decodePath(bytes: Uint8Array): string {
  if (bytes.length > MAX_PATH_BYTES)
    throw new TarRefusal(shown(bytes), `${shown(bytes)}: path longer than ${MAX_PATH_BYTES} bytes (${bytes.length})`);
  let segment = 0;
  for (const byte of bytes) {
    segment = byte === 0x2f ? 0 : segment + 1;
    if (segment > MAX_SEGMENT_BYTES)
      throw new TarRefusal(shown(bytes), `${shown(bytes)}: a path segment is longer than ${MAX_SEGMENT_BYTES} bytes`);
  }
  try {
    return utf8.decode(bytes);
  } catch {
    throw new TarRefusal(shown(bytes), `${shown(bytes)}: the name is not valid UTF-8`);
  }
}

/**
 * A numeric header field, as strictly as both tools agree: optional leading spaces, octal digits, then only
 * spaces and NULs. Base-256 (first byte 0x80) only where `base256` allows it; a negative value never.
 */
function numeric(
  block: Buffer,
  offset: number,
  length: number,
  what: string,
  where: () => string,
  base256 = false,
): number {
  const field = block.subarray(offset, offset + length);
  if (field[0] === 0x80 && base256) {
    let n = 0;
    for (let i = 1; i < length; i++) n = n * 256 + field[i]!;
    if (!Number.isSafeInteger(n)) throw new TarRefusal(where(), `${where()}: ${what} field out of range`);
    return n;
  }
  if (field[0]! & 0x80)
    throw new TarRefusal(
      where(),
      `${where()}: ${what} field in base-256${field[0] === 0xff ? " (negative)" : ""}; only octal is accepted`,
    );
  const text = field.toString("latin1");
  const m = /^ *([0-7]*)[ \0]*$/.exec(text);
  if (!m) throw new TarRefusal(where(), `${where()}: ${what} field is not an octal number (${JSON.stringify(text)})`);
  return m[1] ? parseInt(m[1], 8) : 0;
}

/** Parses a PAX extended header's records ("LEN key=value\n"), refusing any malformed one. */
function parsePax(data: Buffer, where: string): Map<string, Buffer> {
  const records = new Map<string, Buffer>();
  let pos = 0;
  while (pos < data.length) {
    const space = data.indexOf(0x20, pos);
    const digits = space === -1 ? "" : data.toString("latin1", pos, space);
    const len = /^[1-9][0-9]{0,5}$/.test(digits) ? parseInt(digits, 10) : NaN;
    if (!(len > digits.length + 3) || pos + len > data.length || data[pos + len - 1] !== 0x0a)
      throw new TarRefusal(ARCHIVE_PATH, `${where}: malformed PAX extended header record`);
    const record = data.subarray(space + 1, pos + len - 1);
    const eq = record.indexOf(0x3d);
    const key = eq <= 0 ? "" : record.toString("latin1", 0, eq);
    if (!/^[\x21-\x7e]+$/.test(key)) throw new TarRefusal(ARCHIVE_PATH, `${where}: malformed PAX key`);
    if (records.has(key)) throw new TarRefusal(ARCHIVE_PATH, `${where}: PAX key ${key} given twice`);
    if (!PAX_APPLIED.has(key) && !PAX_IGNORED.has(key) && !PAX_IGNORED_PREFIXES.some((p) => key.startsWith(p))) {
      throw new TarRefusal(
        ARCHIVE_PATH,
        `${where}: PAX key ${key} is not accepted${key.startsWith("GNU.sparse.") ? " (GNU sparse files are not accepted)" : ""}`,
      );
    }
    records.set(key, record.subarray(eq + 1));
    pos += len;
  }
  return records;
}

/** Pulls exact byte counts from a chunk stream, holding at most one block or one header's worth. */
class ByteSource {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private ended = false;
  /** Bytes consumed so far: where the next read starts. */
  offset = 0;
  constructor(private readonly it: AsyncIterator<Buffer>) {}

  private async fill(n: number): Promise<boolean> {
    while (this.buffered < n && !this.ended) {
      const r = await this.it.next();
      if (r.done) this.ended = true;
      else if (r.value.length) {
        this.chunks.push(r.value);
        this.buffered += r.value.length;
      }
    }
    return this.buffered >= n;
  }

  /** Up to `max` buffered bytes (after fetching a chunk if none), or null at the end. */
  private async some(max: number): Promise<Buffer | null> {
    if (!(await this.fill(1))) return null;
    const first = this.chunks[0]!;
    const n = Math.min(max, first.length);
    const out = first.subarray(0, n);
    if (n === first.length) this.chunks.shift();
    else this.chunks[0] = first.subarray(n);
    this.buffered -= n;
    this.offset += n;
    return out;
  }

  /** Exactly n bytes, or null if the stream ends first. */
  async exact(n: number): Promise<Buffer | null> {
    if (!(await this.fill(n))) return null;
    const parts: Buffer[] = [];
    for (let left = n; left > 0; ) {
      const part = (await this.some(left))!;
      parts.push(part);
      left -= part.length;
    }
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
  }

  /** `span.left` bytes, chunk by chunk, counting down: a reader that stops early leaves the count right. */
  async *stream(span: { left: number }, where: string): AsyncGenerator<Buffer> {
    while (span.left > 0) {
      const part = await this.some(span.left);
      if (!part) throw new TarRefusal(ARCHIVE_PATH, `${where}: the archive ends inside this entry (truncated)`);
      span.left -= part.length;
      yield part;
    }
  }

  /** Everything left, chunk by chunk. */
  async *rest(): AsyncGenerator<Buffer> {
    for (let part = await this.some(Infinity); part; part = await this.some(Infinity)) yield part;
  }
}

const BLOCK = 512;
const padding = (size: number) => (BLOCK - (size % BLOCK)) % BLOCK;
const POSIX_MAGIC = Buffer.from("ustar\x0000", "latin1");
const GNU_MAGIC = Buffer.from("ustar  \x00", "latin1");

function checkBlock(block: Buffer, at: string): "posix" | "gnu" {
  const where = () => at;
  let sum = 8 * 0x20;
  for (let i = 0; i < BLOCK; i++) if (i < 148 || i >= 156) sum += block[i]!;
  const stored = /^ *([0-7]+)[ \0]*$/.exec(block.toString("latin1", 148, 156));
  if (!stored || parseInt(stored[1]!, 8) !== sum)
    throw new TarRefusal(ARCHIVE_PATH, `${at}: bad header checksum (not a tar archive, or a corrupt one)`);
  const magic = block.subarray(257, 265);
  const format = magic.equals(POSIX_MAGIC) ? "posix" : magic.equals(GNU_MAGIC) ? "gnu" : null;
  if (!format) throw new TarRefusal(ARCHIVE_PATH, `${at}: not a POSIX ustar or GNU tar header`);
  // In GNU headers these bytes hold incremental/sparse data, which Python's tarfile would read as a name prefix.
  if (format === "gnu" && block.subarray(345, 500).some((b) => b !== 0))
    throw new TarRefusal(ARCHIVE_PATH, `${at}: GNU header with incremental or sparse data; not accepted`);
  try {
    for (const [off, len, what] of [
      [100, 8, "mode"],
      [108, 8, "uid"],
      [116, 8, "gid"],
      [136, 12, "mtime"],
      [329, 8, "devmajor"],
      [337, 8, "devminor"],
    ] as const) {
      numeric(block, off, len, what, where, true);
    }
  } catch (e) {
    throw e instanceof TarRefusal ? new TarRefusal(ARCHIVE_PATH, e.message) : e;
  }
  return format;
}

/**
 * Yields each entry with its content (which must be read to its end, or left: the reader skips what is left).
 * Throws TarRefusal on anything it does not accept, and at the end unless the archive ended properly.
 */
export async function* readTar(
  chunks: AsyncIterable<Buffer>,
): AsyncGenerator<{ entry: TarEntry; body: AsyncGenerator<Buffer> }> {
  const src = new ByteSource(chunks[Symbol.asyncIterator]());
  let longName: Buffer | null = null;
  let pax: Map<string, Buffer> | null = null;
  for (;;) {
    const at = `header at byte ${src.offset}`;
    const block = await src.exact(BLOCK);
    if (!block) throw new TarRefusal(ARCHIVE_PATH, "the tar archive has no end-of-archive marker (truncated?)");
    if (block.every((b) => b === 0)) {
      if (longName || pax) throw new TarRefusal(ARCHIVE_PATH, `${at}: an extended header with no entry after it`);
      // GNU tar and tarfile stop at the first zero block; anything hidden after it is refused.
      for await (const rest of src.rest())
        if (rest.some((b) => b !== 0)) throw new TarRefusal(ARCHIVE_PATH, "data after the end-of-archive marker");
      return;
    }
    const format = checkBlock(block, at);
    const typeflag = String.fromCharCode(block[156]!);
    const nameField = cString(block, 0, 100);
    const where = () => (longName ? shown(longName) : shown(nameField));
    const size = numeric(block, 124, 12, "size", where);

    if (typeflag === "x" || typeflag === "L") {
      const cap = typeflag === "x" ? MAX_PAX_BYTES : MAX_PATH_BYTES + 1;
      const what = typeflag === "x" ? "PAX extended header" : "GNU long name";
      if (size > cap)
        throw new TarRefusal(
          ARCHIVE_PATH,
          `${at}: ${what} of ${size} bytes; the cap is ${cap}${typeflag === "L" ? ` (paths are limited to ${MAX_PATH_BYTES} bytes)` : ""}`,
        );
      if ((typeflag === "x" && pax) || (typeflag === "L" && longName))
        throw new TarRefusal(ARCHIVE_PATH, `${at}: two ${what}s for one entry`);
      const data = await src.exact(size + padding(size));
      if (!data) throw new TarRefusal(ARCHIVE_PATH, `${at}: the archive ends inside a ${what} (truncated)`);
      if (typeflag === "x") pax = parsePax(data.subarray(0, size), `${at} (${JSON.stringify(shown(nameField))})`);
      else longName = cString(data, 0, size);
      continue;
    }
    const refused = REFUSED_TYPES[typeflag];
    const type = TYPES[typeflag];
    if (refused || !type)
      throw new TarRefusal(
        where(),
        `${where()}: ${refused ?? `unsupported entry type (typeflag ${JSON.stringify(typeflag)})`}`,
      );
    if (longName && pax?.has("path"))
      throw new TarRefusal(where(), `${where()}: both a GNU long name and a PAX path; not accepted`);

    const prefix = format === "posix" ? cString(block, 345, 500) : Buffer.alloc(0);
    const paxPath = pax?.get("path");
    // GNU tar cuts a PAX path at a NUL, tarfile keeps all of it: the tools would name the file differently.
    if (paxPath?.includes(0))
      throw new TarRefusal(
        shown(paxPath),
        `${shown(paxPath)}: a NUL byte inside a PAX path (GNU tar and tarfile read the name differently)`,
      );
    const nameBytes =
      paxPath ?? longName ?? (prefix.length ? Buffer.concat([prefix, Buffer.from("/"), nameField]) : nameField);
    const path = decodePath(nameBytes);
    if (path === "") throw new TarRefusal(ARCHIVE_PATH, `${at}: an entry with an empty name`);
    let entrySize = size;
    const paxSize = pax?.get("size");
    if (paxSize) {
      const text = paxSize.toString("latin1");
      if (!/^(0|[1-9][0-9]{0,15})$/.test(text))
        throw new TarRefusal(
          path,
          `${path}: PAX size ${JSON.stringify(text.slice(0, 40))} is not a canonical decimal size`,
        );
      entrySize = parseInt(text, 10);
    }
    longName = null;
    pax = null;
    const regular = type === "file" || type === "contiguous-file";
    // tarfile reads a typeflag-\0 entry named "x/" as a directory, GNU tar extracts it as one: neither is a file.
    if (regular && (path.endsWith("/") || nameField.at(-1) === 0x2f))
      throw new TarRefusal(path, `${path}: a file entry named like a directory`);
    // Neither tool skips the content of a non-file entry the same way: only files may have one.
    if (!regular && entrySize !== 0) throw new TarRefusal(path, `${path}: a ${type} entry with a size (${entrySize})`);

    const span = { left: entrySize };
    yield { entry: { path, type, size: entrySize }, body: src.stream(span, path) };
    for await (const _ of src.stream(span, path)); // what the caller left unread
    const pad = padding(entrySize);
    if (pad && !(await src.exact(pad)))
      throw new TarRefusal(path, `${path}: the archive ends inside this entry (truncated)`);
  }
}
