/**
 * The one reader of JSON that comes from outside the process: request bodies (server/http/body-limit.ts),
 * fixtures and export directories, `fixture.json` inside an uploaded archive, server files. The same caps
 * for all: a size (per kind of input) and JSON_DEPTH_MAX levels of nesting, counted on the raw bytes as they
 * arrive, so a hostile input is refused after its first few bytes rather than after it was read or parsed.
 * Files are opened without following a link and read only when they are regular files, through the one
 * descriptor that was checked: a link to /dev/zero or a FIFO named fixture.json is refused, never read.
 */
import type { Stats } from "node:fs";
import { ReadRefusal, readRegularFile } from "../files/safe-read";
import { JSON_DEPTH_MAX } from "./json-shape";

/** The largest fixture document (a fixture file, an export's fixture.json, on disk or in an archive). */
export const FIXTURE_JSON_MAX_BYTES = 64 * 1024 * 1024;
/** The largest small state file (server.json, a ready file). */
export const STATE_FILE_MAX_BYTES = 64 * 1024;

const tooDeep = () => new ReadRefusal("too-deep", `nests deeper than ${JSON_DEPTH_MAX} levels`);

/**
 * Nesting of JSON text fed in pieces. Strings are skipped; `"` and `\` never occur inside a multi-byte UTF-8
 * sequence (nor in a UTF-16 surrogate), so bytes and string units are scanned alike.
 */
export class JsonDepthMeter {
  private depth = 0;
  private inString = false;
  private escaped = false;
  constructor(private readonly max = JSON_DEPTH_MAX) {}

  /** Throws ReadRefusal ("too-deep") as soon as the nesting passes the bound. */
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

/** The bytes of a JSON file, read with the size cap and the nesting bound (not parsed). */
export function readJsonFileBytes(path: string, maxBytes: number, accept?: (stat: Stats) => boolean): Buffer {
  const meter = new JsonDepthMeter();
  return readRegularFile(path, maxBytes, (chunk) => meter.push(chunk), accept);
}

/** The text of a JSON file, read with the size cap and the nesting bound (not parsed). */
export function readJsonFileText(path: string, maxBytes: number, accept?: (stat: Stats) => boolean): string {
  return new TextDecoder().decode(readJsonFileBytes(path, maxBytes, accept));
}

/** A JSON file, read and parsed with both caps. */
export function readJsonFile(path: string, maxBytes: number, accept?: (stat: Stats) => boolean): unknown {
  return JSON.parse(readJsonFileText(path, maxBytes, accept));
}
