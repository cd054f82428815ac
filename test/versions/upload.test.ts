/**
 * receiveUpload on its own: the bundle is written to disk and inspected in the same pass, and a failure of
 * the server's disk is not blamed on the client's body.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_BUNDLE_LIMITS } from "../../server/bundles/bundle-limits";
import { ApiError } from "../../server/errors/api-error";
import { receiveUpload, type UploadRequest } from "../../server/resources/versions/upload";
import { bundleDir } from "../helpers/bundles";

const bundles = bundleDir();
const temp = mkdtempSync(join(tmpdir(), "ext-upload-"));
afterAll(() => {
  bundles.cleanup();
  rmSync(temp, { recursive: true, force: true });
});
let n = 0;

function multipart(bundle: Uint8Array | Blob): { body: ReadableStream<Uint8Array>; contentType: string } {
  const form = new FormData();
  form.set("version", "1.0.0");
  form.set("bundle", new File([bundle], "bundle.tar.gz"));
  const request = new Request("http://localhost/", { method: "POST", body: form });
  return { body: request.body!, contentType: request.headers.get("content-type")! };
}

/** The same bytes in small chunks, as a slow client would send them (the cap is then crossed mid-bundle). */
function inPieces(body: ReadableStream<Uint8Array>, size: number): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let rest: Uint8Array = new Uint8Array(0);
  return new ReadableStream({
    async pull(controller) {
      while (rest.length === 0) {
        const { done, value } = await reader.read();
        if (done) return controller.close();
        rest = value;
      }
      controller.enqueue(rest.slice(0, size));
      rest = rest.subarray(size);
    },
  });
}

function request(
  body: ReadableStream<Uint8Array>,
  contentType: string,
  over: Partial<UploadRequest> = {},
): UploadRequest {
  return {
    contentType,
    contentLength: null,
    body,
    maxBytes: 64 << 20,
    limits: DEFAULT_BUNDLE_LIMITS,
    tempPath: () => join(temp, `upload-${n++}`),
    ...over,
  };
}

describe("receiveUpload", () => {
  test("a valid bundle is written to disk byte for byte and inspected in the same pass", async () => {
    const file = await bundles.make();
    const bytes = readFileSync(file);
    const { body, contentType } = multipart(bytes);
    const upload = await receiveUpload(request(body, contentType));
    const b = upload.bundle!;
    expect(readFileSync(b.tempFile).equals(bytes)).toBe(true);
    expect(b.bytes).toBe(bytes.length);
    expect(b.sha256).toBe(createHash("sha256").update(bytes).digest("hex"));
    expect(b.inspection).toMatchObject({ problems: [], warnings: [], soundCount: 7 });
    expect(upload.fields.version).toBe("1.0.0");
  });

  test("a large body that is not gzip stops the inspection at its first bytes but is still received whole", async () => {
    const junk = new Uint8Array(8 << 20).fill(7);
    const { body, contentType } = multipart(junk);
    const upload = await receiveUpload(request(body, contentType));
    expect(upload.bundle!.bytes).toBe(junk.length);
    // The inspection let go of the part stream it shares with the temp file: the file still has every byte.
    expect(readFileSync(upload.bundle!.tempFile).equals(junk)).toBe(true);
    expect(upload.bundle!.sha256).toBe(createHash("sha256").update(junk).digest("hex"));
    expect(upload.bundle!.inspection.problems).toEqual([
      { path: "(archive)", message: "not a gzip file: the bundle must be a .tar.gz archive" },
    ]);
  });

  test("the archive's total is checked against the limit once every byte has arrived", async () => {
    const file = await bundles.make();
    const { body, contentType } = multipart(readFileSync(file));
    const upload = await receiveUpload(
      request(body, contentType, { limits: { ...DEFAULT_BUNDLE_LIMITS, bundle_total_bytes: 100 } }),
    );
    expect(upload.bundle!.inspection.problems).toEqual([
      expect.objectContaining({
        path: "(archive)",
        limit: "bundle_total_bytes",
        max: 100,
        current: upload.bundle!.bytes,
      }),
    ]);
  });

  test("a body cut off over the cap ends the inspection too; the temp file it asked for is its owner's", async () => {
    const file = await bundles.make();
    const { body, contentType } = multipart(readFileSync(file));
    const asked: string[] = [];
    const tempPath = () => {
      asked.push(join(temp, `upload-${n++}`));
      return asked.at(-1)!;
    };
    const error = await receiveUpload(request(inPieces(body, 256), contentType, { maxBytes: 1024, tempPath })).catch(
      (e) => e,
    );
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe("payload_too_large");
    // One file, left for its owner (the request) to remove: the reader never removes what it did not make.
    expect(asked).toHaveLength(1);
  });

  test("a temp file that cannot be written is a server error (500 path), not a 422 malformed body", async () => {
    const { body, contentType } = multipart(new Uint8Array(1024));
    const attempt = receiveUpload(request(body, contentType, { tempPath: () => "/nonexistent-dir/for/ext/upload" }));
    const error = await attempt.catch((e) => e);
    expect(error).not.toBeInstanceOf(ApiError);
    expect((error as NodeJS.ErrnoException).code).toBe("ENOENT");
  });

  test("a temp file that cannot be written fails a large body too, promptly, instead of hanging", async () => {
    // Big enough that the parser waits on the failed write's backpressure: the failure must reach it.
    const { body, contentType } = multipart(new Uint8Array(8 << 20).fill(1));
    const attempt = receiveUpload(request(body, contentType, { tempPath: () => "/nonexistent-dir/for/ext/upload" }));
    // A hang shows as this test's timeout.
    const error = await attempt.catch((e) => e);
    expect((error as NodeJS.ErrnoException).code).toBe("ENOENT");
  });

  test("a body cut off inside an ignored extra file part is a 422 validation_error, not a crash", async () => {
    const whole =
      "--x\r\n" +
      'Content-Disposition: form-data; name="version"\r\n\r\n1.0.0\r\n' +
      "--x\r\n" +
      'Content-Disposition: form-data; name="other"; filename="o.bin"\r\nContent-Type: application/octet-stream\r\n\r\n' +
      "z".repeat(100_000);
    const uncaught: unknown[] = [];
    const onUncaught = (e: unknown) => uncaught.push(e);
    process.on("uncaughtException", onUncaught);
    try {
      const error = await receiveUpload(request(new Response(whole).body!, "multipart/form-data; boundary=x")).catch(
        (e) => e,
      );
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).code).toBe("validation_error");
      // An unheard 'error' of the cut-off part would surface on a later tick: a whole upload received after
      // it (file writes, many turns of the event loop) is the later event that rules it out.
      const after = multipart(readFileSync(await bundles.make()));
      expect((await receiveUpload(request(after.body, after.contentType))).bundle!.bytes).toBeGreaterThan(0);
      expect(uncaught).toEqual([]);
    } finally {
      process.off("uncaughtException", onUncaught);
    }
  });

  test("a body that is not valid multipart is a 422 validation_error", async () => {
    const body = new Response('--x\r\nContent-Disposition: form-data; name="version"\r\n\r\n1.0').body!;
    const error = await receiveUpload(request(body, "multipart/form-data; boundary=x")).catch((e) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe("validation_error");
  });
});
