/**
 * The developer API's JSON bodies are small (a description is at most 20,000 characters, a secret 64 KB), so
 * any JSON body over 1 MiB is refused with the 413 envelope: by its Content-Length before a byte is read, or,
 * for a chunked body, as soon as the running count passes the cap. Version bundles have their own cap
 * (src/versions/upload.ts).
 */
import { errors } from "../errors/catalog";
import { JsonDepthMeter } from "../json-reader";
import { ReadRefusal } from "../safe-read";
import { JSON_DEPTH_MAX } from "./json-shape";
import { requestContextOf } from "./request-context";

export const JSON_BODY_MAX_BYTES = 1024 * 1024;

/** True when the request declares a body longer than `max` bytes. */
export function declaresMoreThan(request: Request, max: number): boolean {
  const declared = request.headers.get("content-length");
  return declared !== null && Number(declared) > max;
}

/**
 * Reads a JSON request body and parses it. A declared length over `max` is refused before a byte is read (the
 * developer API's gate has already refused it there; this covers every other JSON route); without one, the
 * body is read chunk by chunk, stopping at `max` bytes. Nesting past JSON_DEPTH_MAX is refused on the raw
 * bytes, before anything parses, validates or formats the value. Malformed JSON is the 422 envelope; an empty
 * body is left to the route (undefined).
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
  // TextDecoder drops a leading byte-order mark, as Request.text() does.
  const text = utf8.decode(bytes);
  // Kept for the request log, which records a small write's body without reading the stream a second time.
  const context = requestContextOf(request);
  if (context) context.jsonBodyText = text;
  // No body at all: the route's own "json" parser decides, as it knows whether the body is optional.
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw errors.malformedJson();
  }
}

const utf8 = new TextDecoder();

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
