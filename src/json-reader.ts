/**
 * The one reader of JSON that comes from outside the process: request bodies (src/http/body-limit.ts),
 * fixtures and export directories, `fixture.json` inside an uploaded archive, server files. The same caps
 * for all: a size (per kind of input) and JSON_DEPTH_MAX levels of nesting, counted on the raw bytes as they
 * arrive, so a hostile input is refused after its first few bytes rather than after it was read or parsed.
 * Files are opened without following a link and read only when they are regular files, through the one
 * descriptor that was checked: a link to /dev/zero or a FIFO named fixture.json is refused, never read.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from "node:fs";
import { JSON_DEPTH_MAX } from "./http/json-shape";

/** The largest fixture document (a fixture file, an export's fixture.json, on disk or in an archive). */
export const FIXTURE_JSON_MAX_BYTES = 64 * 1024 * 1024;
/** The largest small state file (server.json, a ready file). */
export const STATE_FILE_MAX_BYTES = 64 * 1024;

/** Why an input was not read, in words (never errno text); `reason` lets callers choose their own status. */
export class JsonRefusal extends Error {
  override name = "JsonRefusal";
  constructor(
    readonly reason: "too-large" | "too-deep" | "not-a-file" | "unreadable",
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

const tooDeep = () => new JsonRefusal("too-deep", `nests deeper than ${JSON_DEPTH_MAX} levels`);
const tooLarge = (max: number) => new JsonRefusal("too-large", `is larger than ${max} bytes`);

/**
 * Nesting of JSON text fed in pieces. Strings are skipped; `"` and `\` never occur inside a multi-byte UTF-8
 * sequence (nor in a UTF-16 surrogate), so bytes and string units are scanned alike.
 */
export class JsonDepthMeter {
  private depth = 0;
  private inString = false;
  private escaped = false;
  constructor(private readonly max = JSON_DEPTH_MAX) {}

  /** Throws JsonRefusal ("too-deep") as soon as the nesting passes the bound. */
  push(chunk: Uint8Array | string): void {
    const isText = typeof chunk === "string";
    for (let i = 0; i < chunk.length; i++) {
      const c = isText ? chunk.charCodeAt(i) : chunk[i];
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === 0x5c) this.escaped = true;
        else if (c === 0x22) this.inString = false;
      } else if (c === 0x22) this.inString = true;
      else if (c === 0x7b || c === 0x5b) {
        if (++this.depth > this.max) throw tooDeep();
      } else if (c === 0x7d || c === 0x5d) this.depth--;
    }
  }
}

/** Parses JSON text after checking its nesting; a SyntaxError for malformed text, as JSON.parse. */
export function parseJsonText(text: string, reviver?: (key: string, value: unknown) => unknown): unknown {
  new JsonDepthMeter().push(text);
  return JSON.parse(text, reviver);
}

function unreadable(code: string | undefined): JsonRefusal {
  const words =
    code === "ENOENT"
      ? "no such file"
      : code === "ELOOP"
        ? "is a symbolic link (links are not followed)"
        : code === "EISDIR"
          ? "is a directory"
          : code === "EACCES" || code === "EPERM"
            ? "permission denied"
            : "cannot be read";
  return new JsonRefusal(code === "ELOOP" || code === "EISDIR" ? "not-a-file" : "unreadable", words, code);
}

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
// A FIFO opened for reading would wait for a writer: opened non-blocking, then refused as not a regular file.
const NONBLOCK = constants.O_NONBLOCK ?? 0;

/**
 * Opens `path` without following a link, as a regular file only; the caller reads through the returned
 * descriptor (the file that was checked) and closes it. `stat` is that descriptor's.
 */
export function openRegularFile(path: string): { fd: number; stat: Stats } {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | NOFOLLOW | NONBLOCK);
  } catch (e) {
    throw unreadable((e as NodeJS.ErrnoException).code);
  }
  const stat = fstatSync(fd);
  if (!stat.isFile()) {
    closeSync(fd);
    throw stat.isDirectory() ? unreadable("EISDIR") : new JsonRefusal("not-a-file", "is not a regular file");
  }
  return { fd, stat };
}

/**
 * The bytes of the regular file `path`, at most `maxBytes` (JsonRefusal past that, decided by its size
 * before reading and by the count while reading, should it grow). `meter` sees each piece as it is read;
 * `accept` may refuse the opened file by its stat (an owner, a mode), with no gap between check and read.
 */
export function readRegularFile(
  path: string,
  maxBytes: number,
  meter?: JsonDepthMeter,
  accept?: (stat: Stats) => boolean,
): Buffer {
  const { fd, stat } = openRegularFile(path);
  try {
    if (accept && !accept(stat)) throw new JsonRefusal("not-a-file", "is not a file this reader accepts");
    if (stat.size > maxBytes) throw tooLarge(maxBytes);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(1024 * 1024, maxBytes + 1 - total) || 1);
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      total += n;
      if (total > maxBytes) throw tooLarge(maxBytes);
      const piece = chunk.subarray(0, n);
      meter?.push(piece);
      chunks.push(piece);
    }
    return Buffer.concat(chunks, total);
  } finally {
    closeSync(fd);
  }
}

/** The text of a JSON file, read with the size cap and the nesting bound (not parsed). */
export function readJsonFileText(path: string, maxBytes: number, accept?: (stat: Stats) => boolean): string {
  return new TextDecoder().decode(readRegularFile(path, maxBytes, new JsonDepthMeter(), accept));
}

/** A JSON file, read and parsed with both caps. */
export function readJsonFile(path: string, maxBytes: number, accept?: (stat: Stats) => boolean): unknown {
  return JSON.parse(readJsonFileText(path, maxBytes, accept));
}
