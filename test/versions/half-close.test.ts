/**
 * A client that sends a whole upload and then half-closes its socket (shutdown(SHUT_WR), Node's
 * `socket.end()`). Bun closes the connection when that FIN arrives — it keeps no half-closed sockets — so a
 * submission still being handled then can never be answered. The emulator then does not create the
 * version: the client's view (no answer) and the state (no version) agree, and its retry is a 202, not a 409.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { connect } from "node:net";
import { bundleDir, createExtension } from "../helpers/bundles";
import { DEMO_KEY, startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";
import { waitFor } from "../helpers/wait-for";

let emu: TestEmulator;
const bundles = bundleDir();
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(async () => {
  await stopTestEmulator(emu);
  bundles.cleanup();
});

const BOUNDARY = "half-close-boundary";

function submission(extensionId: string, label: string, bundle: Buffer): Buffer {
  const body = Buffer.concat([
    Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="version"\r\n\r\n${label}\r\n`),
    Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="bundle"; filename="b.tar.gz"\r\nContent-Type: application/gzip\r\n\r\n`,
    ),
    bundle,
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
  const head =
    `POST /developer/v1/extensions/${extensionId}/versions HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${DEMO_KEY}\r\n` +
    `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: ${body.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head), body]);
}

/** Sends the whole request, then half-closes; resolves with everything the server sent before closing. */
function sendThenHalfClose(port: number, request: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = connect({ port, host: "127.0.0.1", allowHalfOpen: true }, () => sock.write(request, () => sock.end()));
    let text = "";
    sock.on("data", (d) => (text += d));
    sock.on("close", () => resolve(text));
    sock.on("error", reject);
  });
}

/** Waits until the request log holds `n` submissions to this extension (the handler has finished). */
async function submissionsLogged(extensionId: string, n: number) {
  const path = `/developer/v1/extensions/${extensionId}/versions`;
  return waitFor(async () => {
    const entries = (await emu.control.GET("/_emulator/requests")).data?.requests ?? [];
    const mine = entries.filter((e) => e.method === "POST" && e.path === path);
    return mine.length >= n ? mine : null;
  }, `${n} logged submissions`);
}

describe("POST /extensions/:id/versions from a client that half-closes after sending", () => {
  test("the connection cannot be answered, so no version is created; the retry is a 202", async () => {
    await emu.control.POST("/_emulator/reset", {});
    const id = await createExtension(emu);
    const bundle = readFileSync(await bundles.make());
    // The handler starts only once Bun has closed the connection on the client's FIN: a latency rule holds
    // it, for longer than the test may run, and its delay ends when the client goes away. So the answer
    // is ready only after the close: the case this test is about, every time.
    const rule = { path: "/extensions/:id/versions", method: "POST", latencyMs: 60_000, times: 1 } as const;
    expect((await emu.control.POST("/_emulator/faults", { body: rule })).response.status).toBe(201);
    const answer = await sendThenHalfClose(emu.port, submission(id, "1.0.0", bundle));
    expect(answer).toBe("");
    const [logged] = await submissionsLogged(id, 1);
    expect(logged!.status).toBe(499);
    const versions = await emu.client.GET("/developer/v1/extensions/{id}/versions", { params: { path: { id } } });
    expect(versions.data?.versions).toEqual([]);
    expect((await emu.control.GET("/_emulator/state")).data?.counts.bundleFiles).toBe(0);

    // The same upload (the same bytes, so raw), retried by a client that waits for its answer: created, not a 409.
    const retry = await emu.rawRequest("POST", `/developer/v1/extensions/${id}/versions`, {
      key: DEMO_KEY,
      body: submission(id, "1.0.0", bundle).subarray(submission(id, "1.0.0", bundle).indexOf("\r\n\r\n") + 4),
      headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
    });
    expect(retry.status).toBe(202);
    expect((retry.body as { version?: { version?: string } }).version?.version).toBe("1.0.0");
  });

  test("a JSON create sent the same way gets its 201 (answered before the FIN is read)", async () => {
    await emu.control.POST("/_emulator/reset", {});
    const json = JSON.stringify({ name: "Half Closed" });
    const request = Buffer.from(
      `POST /developer/v1/extensions HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${DEMO_KEY}\r\nContent-Type: application/json\r\nContent-Length: ${json.length}\r\n\r\n${json}`,
    );
    const answer = await sendThenHalfClose(emu.port, request);
    expect(answer).toStartWith("HTTP/1.1 201 ");
    expect((await emu.client.GET("/developer/v1/extensions")).data?.extensions.map((e) => e.name)).toEqual([
      "Half Closed",
    ]);
  });
});
