/**
 * The live request log's bounds, over real sockets: a cap on open streams, and a client that stops reading
 * is dropped once its queue is full, instead of holding the server's memory.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect, type Socket } from "node:net";
import { MAX_QUEUED_BYTES, MAX_REQUEST_STREAMS, openRequestStreams } from "../../server/control-plane/request-stream";
import { expectEnvelope, startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";
import { waitFor } from "../helpers/wait-for";

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => stopTestEmulator(emu));

const openStreams = () => openRequestStreams(emu.runtime.control.requestLog);

/** A logged entry with a long path, so that few of them fill a queue. */
const bulkyEntry = () => ({
  method: "GET",
  path: `/developer/v1/extensions/${"x".repeat(1_000)}`,
  status: 200,
  errorCode: null,
  accountId: null,
  keyId: null,
  durationMs: 1,
  atMs: 0,
  detail: { requestHeaders: new Headers() } as never,
});

/** The owner's Authorization header. */
const owner = () => ({ authorization: `Bearer ${emu.runtime.control.adminToken}` });

describe("GET /_emulator/requests/stream: bounds", () => {
  test(`past ${MAX_REQUEST_STREAMS} open streams a new one is a 503 too_many_streams; closing one makes room`, async () => {
    const controllers: AbortController[] = [];
    try {
      for (let i = 0; i < MAX_REQUEST_STREAMS; i++) {
        const controller = new AbortController();
        controllers.push(controller);
        const res = await fetch(`${emu.adminUrl}/requests/stream`, { signal: controller.signal, headers: owner() });
        expect(res.status).toBe(200);
        const reader = res.body!.getReader();
        await reader.read(); // ": connected"
        reader.releaseLock();
      }
      expect(openStreams()).toBe(MAX_REQUEST_STREAMS);
      const refused = await emu.control.GET("/_emulator/requests/stream", { parseAs: "stream" });
      expect(expectEnvelope(refused, 503, "too_many_streams").message).toContain(String(MAX_REQUEST_STREAMS));

      controllers.pop()!.abort();
      await waitFor(() => openStreams() === MAX_REQUEST_STREAMS - 1, "the closed stream is let go");
      const controller = new AbortController();
      controllers.push(controller);
      const again = await fetch(`${emu.adminUrl}/requests/stream`, { signal: controller.signal, headers: owner() });
      expect(again.status).toBe(200);
    } finally {
      for (const c of controllers) c.abort();
      await waitFor(() => openStreams() === 0, "every stream is closed");
    }
  });

  test("a client that stops reading is dropped once its queue is full, and told so when it reads again", async () => {
    const log = emu.runtime.control.requestLog;
    const socket: Socket = connect(emu.port, "127.0.0.1");
    const chunks: Buffer[] = [];
    let received = 0;
    socket.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      received += chunk.length;
    });
    try {
      socket.write(
        `GET /_emulator/requests/stream HTTP/1.1\r\nHost: 127.0.0.1:${emu.port}\r\nAuthorization: ${owner().authorization}\r\n\r\n`,
      );
      await waitFor(() => received > 0 && openStreams() === 1, "the stream is open");
      socket.pause();

      // Far more than the queue and the sockets' buffers hold; recorded in batches, so the server writes between.
      const batch = 100;
      let recorded = 0;
      while (openStreams() === 1 && recorded < 200_000) {
        for (let i = 0; i < batch; i++) log.record(bulkyEntry());
        recorded += batch;
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(openStreams()).toBe(0);
      // Dropped past the queue's bound, not after everything recorded was queued.
      expect(recorded * 1_000).toBeGreaterThan(MAX_QUEUED_BYTES);

      socket.resume();
      await waitFor(() => Buffer.concat(chunks).toString("latin1").endsWith("0\r\n\r\n"), "the stream's end");
      const text = Buffer.concat(chunks).toString("latin1");
      expect(text).toMatch(/: dropped: more than \d+ bytes waited unread\n\n\r\n0\r\n\r\n$/);
    } finally {
      socket.destroy();
    }
  });
});
