/**
 * The developer API's JSON bodies are small (a description is at most 20,000 characters, a secret 64 KB), so
 * any JSON body over 1 MiB is refused with the 413 envelope: by its Content-Length before a byte is read, or,
 * for a chunked body, as soon as the running count passes the cap. Version bundles have their own cap
 * (src/versions/upload.ts).
 */
import { errors } from "../errors/catalog";

export const JSON_BODY_MAX_BYTES = 1024 * 1024;

/** True when the request declares a body longer than `max` bytes. */
export function declaresMoreThan(request: Request, max: number): boolean {
  const declared = request.headers.get("content-length");
  return declared !== null && Number(declared) > max;
}

/** Reads a body that declared no length, stopping at `max` bytes, and parses it as JSON. */
export async function readJsonCapped(body: ReadableStream<Uint8Array>, max: number): Promise<unknown> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += chunk.byteLength;
    if (total > max) throw errors.payloadTooLarge(max);
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw errors.malformedJson();
  }
}
