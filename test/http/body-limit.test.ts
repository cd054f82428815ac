/**
 * Request body caps: every oversized request gets the 413 envelope, decided from Content-Length before the
 * body is read, or from a running count for a chunked body; a missing key is still a 401 first.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { JSON_BODY_MAX_BYTES } from "../../common/api-rules";
import { createExtension } from "../helpers/bundles";
import {
  DEMO_KEY,
  errorOf,
  expectEnvelope,
  startTestEmulator,
  stopTestEmulator,
  type TestEmulator,
} from "../helpers/emulator";
import { announce } from "../helpers/raw-http";

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ config: { rateLimits: true } });
});
afterAll(() => stopTestEmulator(emu));

/** A chunked body (no Content-Length): JSON of roughly `bytes` bytes, sent in 64 KB pieces. */
function chunkedJson(bytes: number): ReadableStream<Uint8Array> {
  const piece = new TextEncoder().encode("x".repeat(64 * 1024));
  let sent = 0;
  return new ReadableStream({
    start(c) {
      c.enqueue(new TextEncoder().encode('{"name":"'));
    },
    pull(c) {
      if (sent >= bytes) {
        c.enqueue(new TextEncoder().encode('"}'));
        c.close();
        return;
      }
      c.enqueue(piece);
      sent += piece.byteLength;
    },
  });
}

describe("POST /extensions (JSON body cap)", () => {
  test("a body declared over 1 MiB is a 413 before a byte is read; counted like any authenticated request, with the rate headers", async () => {
    const answer = await announce(
      emu.port,
      "POST",
      "/developer/v1/extensions",
      { Authorization: `Bearer ${DEMO_KEY}`, "Content-Type": "application/json" },
      JSON_BODY_MAX_BYTES + 1,
    );
    expect(answer.status).toBe(413);
    expect(answer.body.error).toMatchObject({ code: "payload_too_large", status: 413 });
    expect(answer.headers.get("x-ratelimit-limit")).toBe("10");
    expect(answer.headers.get("x-ratelimit-remaining")).toBe("9");
    const created = await emu.client.POST("/developer/v1/extensions", { body: { name: "Fits" } });
    expect(created.response.status).toBe(201);
    expect(created.response.headers.get("x-ratelimit-remaining")).toBe("8");
  });

  test("a chunked body is refused as soon as it passes 1 MiB", async () => {
    const res = await fetch(`${emu.baseUrl}/extensions`, {
      method: "POST",
      headers: { authorization: `Bearer ${DEMO_KEY}`, "content-type": "application/json" },
      body: chunkedJson(2 * JSON_BODY_MAX_BYTES),
    });
    expect(res.status).toBe(413);
    expect(errorOf(await res.json())).toMatchObject({ code: "payload_too_large", status: 413 });
  });

  test("a small chunked body is read and validated as usual", async () => {
    const res = await fetch(`${emu.baseUrl}/extensions`, {
      method: "POST",
      headers: { authorization: `Bearer ${DEMO_KEY}`, "content-type": "application/json" },
      body: chunkedJson(10),
    });
    // ~64 KB name: read whole, then refused by validation (at most 80 characters), not by the cap.
    expectEnvelope(
      { status: res.status, body: await res.json(), headers: res.headers, text: "" },
      422,
      "validation_error",
    );
  });

  test("without a key, an oversized request is a 401 first", async () => {
    const answer = await announce(
      emu.port,
      "POST",
      "/developer/v1/extensions",
      { "Content-Type": "application/json" },
      5 * JSON_BODY_MAX_BYTES,
    );
    expect(answer.status).toBe(401);
    expect(answer.body.error.code).toBe("unauthorized");
  });
});

describe("POST /extensions/:id/versions (far over the bundle cap)", () => {
  test("a 200 MB announcement still gets the envelope, not the HTTP server's bare 413", async () => {
    const id = await createExtension(emu, "Huge Upload");
    const answer = await announce(
      emu.port,
      "POST",
      `/developer/v1/extensions/${id}/versions`,
      { Authorization: `Bearer ${DEMO_KEY}`, "Content-Type": "multipart/form-data; boundary=x" },
      200_000_000,
    );
    expect(answer.status).toBe(413);
    expect(answer.body.error).toMatchObject({ code: "payload_too_large", status: 413 });
  });
});

describe("PUT /extensions/:id/secrets/:key (JSON body cap)", () => {
  test("a body declared over 1 MiB is a 413", async () => {
    const id = await createExtension(emu, "Secret Cap");
    const answer = await announce(
      emu.port,
      "PUT",
      `/developer/v1/extensions/${id}/secrets/TOKEN`,
      { Authorization: `Bearer ${DEMO_KEY}`, "Content-Type": "application/json" },
      2 * JSON_BODY_MAX_BYTES,
    );
    expect(answer.status).toBe(413);
    expect(answer.body.error.code).toBe("payload_too_large");
  });
});

describe("control-plane JSON bodies (the same 1 MiB cap)", () => {
  test("a body declared at 100 MB to POST /_emulator/clock or /_emulator/seed is a 413 before a byte is sent", async () => {
    for (const path of ["/_emulator/clock", "/_emulator/seed", "/_emulator/faults"]) {
      const answer = await announce(
        emu.port,
        "POST",
        path,
        { "Content-Type": "application/json", Authorization: `Bearer ${emu.runtime.control.adminToken}` },
        100_000_000,
      );
      expect({ path, status: answer.status, code: answer.body.error.code }).toEqual({
        path,
        status: 413,
        code: "payload_too_large",
      });
    }
  });
});
