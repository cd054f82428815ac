/**
 * Receives a version submission (multipart/form-data) as it streams in: the `bundle` part goes straight to a
 * temporary file with a running byte count and SHA-256, and — in the same pass — through the bundle
 * inspection, so the answer does not wait for a second read of the file. The small text fields are kept.
 * Nothing holds the bundle in memory. Over the byte cap — announced by Content-Length, or reached mid-stream
 * by a chunked body — the read stops; the temp file is its owner's to remove (the request's, see
 * server/http/request-context.ts).
 */
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as NodeWebReadableStream } from "node:stream/web";
import Busboy from "@fastify/busboy";
import { sha256Hasher } from "../../base/crypto";
import { FlushingFile } from "../../blobs/flushing-file";
import type { BundleLimits } from "../../bundles/bundle-limits";
import { type InspectionResult, inspectArchiveStream, withArchiveSize } from "../../bundles/inspect";
import { ApiError, type ErrorDetail } from "../../errors/api-error";
import { errors } from "../../errors/catalog";

export const UPLOAD_FIELDS = ["version", "changelog", "bundle"] as const;
/** Room for the form's own bytes (boundaries, part headers, version and changelog) above the bundle cap. */
export const FORM_OVERHEAD_BYTES = 256 * 1024;
/** A text field longer than this is cut by the parser and refused (changelog ≤ 10,000 characters, UTF-8). */
const MAX_FIELD_BYTES = 64 * 1024;
/**
 * The upload asks for an (asynchronous) garbage collection every this many bundle bytes. Each chunk of the
 * body, of gunzip's output and of the tar reader is a fresh buffer, dead once hashed, written and inspected;
 * left alone the collector lets tens of MB of them pile up first, so the upload's peak memory would depend on
 * when it happens to run rather than on the buffers the pipeline actually holds. It pays: a 49.9 MB upload's
 * peak RSS growth is ~10 MB lower with it (bench/results/tricks.md).
 */
const COLLECT_EVERY_BYTES = 2 * 1024 * 1024;

export interface ReceivedBundle {
  tempFile: string;
  bytes: number;
  sha256: string;
  /** The bundle inspection against the limits the request was received with, done while it arrived. */
  inspection: InspectionResult;
}

export interface ReceivedUpload {
  fields: { version?: string; changelog?: string };
  bundle: ReceivedBundle | null;
}

export interface UploadRequest {
  contentType: string | null;
  contentLength: string | null;
  body: ReadableStream<Uint8Array> | null;
  /** The request body cap, form overhead included. */
  maxBytes: number;
  /** The limits the bundle is inspected against as it arrives. */
  limits: BundleLimits;
  /** A fresh path for the bundle's temporary file; its owner (the request) removes it, whatever happens here. */
  tempPath: () => string;
}

/** The 413 of an upload: the cap, and the bundle limit it is made of. */
const tooLarge = (req: UploadRequest) =>
  errors.uploadTooLarge(req.maxBytes, Math.min(req.limits.bundle_total_bytes, req.maxBytes));

/** Refuses a body that is not multipart, or announced over the cap, before reading a byte of it. */
export function precheckUpload(req: UploadRequest): void {
  if (!req.contentType || !/^multipart\/form-data\s*;.*boundary=/i.test(req.contentType)) {
    throw errors.unsupportedMediaType("multipart/form-data (with a boundary)", req.contentType);
  }
  if (req.contentLength !== null && Number(req.contentLength) > req.maxBytes) throw tooLarge(req);
}

export async function receiveUpload(req: UploadRequest): Promise<ReceivedUpload> {
  precheckUpload(req);
  if (!req.body) throw errors.multipartEmpty();

  const fields: ReceivedUpload["fields"] = {};
  const problems: ErrorDetail[] = [];
  const writes: Promise<void>[] = [];
  /** Open file-part streams: the parser does not end them when it is torn down, so we must. */
  const open = new Set<NodeJS.ReadableStream & { destroy(e?: Error): void }>();
  let bundle: ReceivedBundle | null = null;

  const parser = Busboy({
    headers: { "content-type": req.contentType! },
    limits: { fieldSize: MAX_FIELD_BYTES, parts: 20 },
  });
  parser.on("field", (name, value, _nameTruncated, valueTruncated) => {
    if (!(UPLOAD_FIELDS as readonly string[]).includes(name))
      problems.push({ field: name, message: `Unknown field "${name}".` });
    else if (name === "bundle")
      problems.push({ field: "bundle", message: "bundle must be a file part (a .tar.gz), not a text field" });
    else if (name in fields) problems.push({ field: name, message: `${name} is given more than once` });
    else if (valueTruncated) problems.push({ field: name, message: `${name} is too long` });
    else fields[name as "version" | "changelog"] = value;
  });
  parser.on("file", (name, stream) => {
    if (name !== "bundle" || bundle) {
      problems.push({
        field: name,
        message:
          name === "bundle"
            ? "bundle is given more than once"
            : (UPLOAD_FIELDS as readonly string[]).includes(name)
              ? `${name} must be a text field`
              : `Unknown field "${name}".`,
      });
      // Drain it: nothing is kept. Its 'error' (a body cut off inside it) is the parser's too, which
      // answers it; without a listener here it would be an uncaught exception.
      stream.on("error", () => {}).resume();
      return;
    }
    const received = { tempFile: req.tempPath(), bytes: 0, sha256: "" } as ReceivedBundle;
    bundle = received;
    const hash = sha256Hasher();
    const file = new FlushingFile(received.tempFile);
    const meter = new Transform({
      transform(chunk: Buffer, _enc, done) {
        received.bytes += chunk.length;
        hash.update(chunk);
        file.wrote(chunk.length);
        if (
          Math.floor(received.bytes / COLLECT_EVERY_BYTES) !==
          Math.floor((received.bytes - chunk.length) / COLLECT_EVERY_BYTES)
        )
          Bun.gc(false);
        done(null, chunk);
      },
    });
    open.add(stream);
    const write = pipeline(stream, meter, file.stream)
      .finally(() => file.close())
      .then(() => void (received.sha256 = hash.digest("hex")))
      .finally(() => open.delete(stream));
    // The inspection reads the same part stream: the stream goes at the pace of the slower reader, so neither
    // side buffers. A fatal problem only detaches it (the bytes still go to disk); an aborted upload destroys
    // the part stream, which the inspection sees as a truncated archive.
    const inspection = inspectArchiveStream(stream, req.limits, {}, "detach");
    // A failed write (disk full, temp dir gone) stops the parser too: otherwise it would wait for ever on
    // the dead part's backpressure, and the failure would surface nowhere.
    write.catch((e: Error) => parser.destroy(e));
    writes.push(
      write,
      inspection.then((result) => void (received.inspection = result)),
    );
  });

  let total = 0;
  const cap = new Transform({
    transform(chunk: Buffer, _enc, done) {
      total += chunk.length;
      // A chunked (or lying) body that passes the cap: stop reading here.
      done(total > req.maxBytes ? tooLarge(req) : null, chunk);
    },
  });

  try {
    await pipeline(Readable.fromWeb(req.body as unknown as NodeWebReadableStream<Uint8Array>), cap, parser);
    await Promise.all(writes);
  } catch (e) {
    for (const stream of open) stream.destroy(new Error("upload aborted"));

    await Promise.allSettled(writes);
    if (e instanceof ApiError) throw e;
    // A system error (disk full, temp dir gone) is the server's failure, not a malformed body: a logged 500.
    if ((e as NodeJS.ErrnoException).syscall) throw e;
    throw errors.multipartMalformed();
  }
  if (problems.length > 0) throw errors.validation(problems);
  if (bundle) {
    const b = bundle as ReceivedBundle;
    b.inspection = withArchiveSize(b.inspection, b.bytes, req.limits);
  }
  return { fields, bundle };
}
