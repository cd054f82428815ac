/** receiveUpload on its own: a failure of the server's disk is not blamed on the client's body. */
import { describe, expect, test } from "bun:test";
import { ApiError } from "../../src/errors/api-error";
import { receiveUpload } from "../../src/versions/upload";

function multipart(): { body: ReadableStream<Uint8Array>; contentType: string } {
  const form = new FormData();
  form.set("version", "1.0.0");
  form.set("bundle", new File([new Uint8Array(1024)], "bundle.tar.gz"));
  const request = new Request("http://localhost/", { method: "POST", body: form });
  return { body: request.body!, contentType: request.headers.get("content-type")! };
}

describe("receiveUpload", () => {
  test("a temp file that cannot be written is a server error (500 path), not a 422 malformed body", async () => {
    const { body, contentType } = multipart();
    const attempt = receiveUpload({ contentType, contentLength: null, body, maxBytes: 1 << 20, tempPath: () => "/nonexistent-dir/for/ext/upload", discard: () => {} });
    const error = await attempt.catch((e) => e);
    expect(error).not.toBeInstanceOf(ApiError);
    expect((error as NodeJS.ErrnoException).code).toBe("ENOENT");
  });

  test("a body that is not valid multipart is a 422 validation_error", async () => {
    const body = new Response("--x\r\nContent-Disposition: form-data; name=\"version\"\r\n\r\n1.0").body!;
    const error = await receiveUpload({ contentType: "multipart/form-data; boundary=x", contentLength: null, body, maxBytes: 1 << 20, tempPath: () => "/tmp/never", discard: () => {} }).catch((e) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe("validation_error");
  });
});
