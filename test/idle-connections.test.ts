/**
 * Idle connections do not pile up: each holds a file descriptor, and thousands of idle keep-alive ones once
 * exhausted them. The server closes a connection idle past its limit, after a GET or after an upload alike.
 * (The limit is shortened here so the test waits a second, not ten.)
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { connect, type Socket } from "node:net";
import { startTestEmulator, stopTestEmulator, type TestEmulator } from "./helpers/emulator";
import { waitFor } from "./helpers/wait-for";

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ idleTimeoutSeconds: 1 });
});
afterAll(() => stopTestEmulator(emu));

/** A keep-alive connection that sent `head` and got its answer; `closed` turns true when the server closes it. */
async function keptAlive(head: string): Promise<{ socket: Socket; closed: () => boolean }> {
  let closed = false;
  let text = "";
  const socket = connect(emu.port, "127.0.0.1", () => socket.write(head));
  socket.on("data", (d) => {
    text += d.toString();
  });
  socket.on("close", () => {
    closed = true;
  });
  socket.on("error", () => undefined);
  await waitFor(() => text.includes("\r\n\r\n") && text.trimEnd().endsWith("}"), "the answer");
  expect(text).toStartWith("HTTP/1.1 200");
  return { socket, closed: () => closed };
}

test("50 idle keep-alive connections, after a GET or a POST with a body, are closed by the server once idle", async () => {
  const host = `Host: 127.0.0.1:${emu.port}\r\n`;
  const token = emu.runtime.control.adminToken;
  const body = JSON.stringify({ advanceSeconds: 1 });
  const heads = [
    ...Array.from({ length: 40 }, () => `GET /healthz HTTP/1.1\r\n${host}\r\n`),
    ...Array.from(
      { length: 10 },
      () =>
        `POST /_emulator/clock HTTP/1.1\r\n${host}Authorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    ),
  ];
  const connections = await Promise.all(heads.map(keptAlive));
  try {
    await waitFor(() => connections.every((c) => c.closed()), "every idle connection to be closed", 15_000);
  } finally {
    for (const c of connections) c.socket.destroy();
  }
}, 30_000);
