/**
 * The developer API's JSON bodies are small (a description is at most 20,000 characters, a secret 64 KB), so
 * any JSON body over 1 MiB is refused with the 413 envelope: by its Content-Length before a byte is read, or,
 * for a chunked body, as soon as the running count passes the cap. Version bundles have their own cap
 * (server/resources/versions/upload.ts).
 */

import { ReadRefusal } from "../../common/files/safe-read";
import { JsonDepthMeter } from "../../common/json/json-reader";
import { JSON_DEPTH_MAX } from "../../common/json/json-shape";
import { errors } from "../errors/catalog";
import { requestContextOf } from "./request-context";

/** True when the request declares a body longer than `max` bytes. */
export function declaresMoreThan(request: Request, max: number): boolean {
  const declared = request.headers.get("content-length");
  return declared !== null && Number(declared) > max;
}

/**
 * Reads a JSON request body and parses it. A declared length over `max` is refused before a byte is read (the
 * developer API's gate has already refused it there; this covers every other JSON route); without one, the
 * body is read chunk by chunk, stopping at `max` bytes. Nesting past JSON_DEPTH_MAX is refused on the raw
 * bytes, before anything parses, validates or formats the value. Bytes that are not UTF-8 and malformed JSON
 * are the 422 envelope (never a U+FFFD stored in their place); so is any value but an object, which every
 * JSON body of the API is (a route whose body is optional would otherwise take `null`, `7` or `[]` for an
 * empty object). An empty body is left to the route (undefined).
 */
export async function readJsonBody(request: Request, max: number): Promise<unknown> {
  if (declaresMoreThan(request, max)) throw errors.payloadTooLarge(max);
  const bytes =
    request.headers.get("content-length") === null && request.body
      ? await readCapped(request.body, max)
      : new Uint8Array(await request.arrayBuffer());
  try {
    new JsonDepthMeter().push(bytes);
  } catch (e) {
    if (e instanceof ReadRefusal) throw errors.bodyTooDeep(JSON_DEPTH_MAX);
    throw e;
  }
  const text = decodeUtf8(bytes);
  // Kept for the request log, which records a small write's body without reading the stream a second time.
  const context = requestContextOf(request);
  if (context) context.jsonBodyText = text;
  // No body at all: the route's own "json" parser decides, as it knows whether the body is optional.
  if (text === "") return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw errors.malformedJson();
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw errors.bodyNotObject();
  return value;
}

// Fatal: a byte sequence that is not UTF-8 is refused, not replaced. It drops a leading byte-order mark, as
// Request.text() does.
const utf8 = new TextDecoder("utf-8", { fatal: true });

function decodeUtf8(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw errors.bodyNotUtf8();
  }
}

async function readCapped(body: ReadableStream<Uint8Array>, max: number): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += chunk.byteLength;
    if (total > max) throw errors.payloadTooLarge(max);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
