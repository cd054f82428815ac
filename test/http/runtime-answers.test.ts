/**
 * The answers the HTTP server (Bun) gives before the emulator sees a request, pinned so docs/behaviour.md
 * ("Errors") stays true across runtime upgrades: a bare 431 and 505, a dropped connection for a method
 * that is not one (lowercase included). /healthz is the app's own route since the Host check applies to it: no
 * ETag, no 304 (its answer may carry a fresh proof).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => stopTestEmulator(emu));

/** Writes `text` on a fresh connection and returns every byte the server sent before it closed. */
function exchange(text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = "";
    const socket = connect(emu.port, "127.0.0.1", () => socket.write(text));
    socket.on("data", (d) => {
      out += d.toString("latin1");
    });
    socket.on("close", () => resolve(out));
    socket.on("error", reject);
  });
}

const request = (line: string, headers = "") => `${line}\r\nHost: localhost\r\n${headers}Connection: close\r\n\r\n`;

describe("answers the HTTP server gives itself", () => {
  test("oversized headers: a bare 431, on any path", async () => {
    for (const path of ["/healthz", "/developer/v1/extensions", "/_emulator/state"]) {
      const answer = await exchange(request(`GET ${path} HTTP/1.1`, `X-Big: ${"a".repeat(100_000)}\r\n`));
      expect(answer).toStartWith("HTTP/1.1 431 ");
      expect(answer).toEndWith("\r\n\r\n");
    }
  });

  test("an HTTP version other than 1.0 and 1.1, or none: a bare 505", async () => {
    for (const line of ["GET /healthz HTTP/2.0", "GET /healthz HTTP/1.2", "GET /healthz"])
      expect(await exchange(request(line))).toStartWith("HTTP/1.1 505 ");
  });

  test("a method that is not one (names are case-sensitive: `get` is not GET): the connection closes unanswered", async () => {
    for (const line of ["get /healthz HTTP/1.1", "get /developer/v1/extensions HTTP/1.1", "FOO /healthz HTTP/1.1"])
      expect(await exchange(request(line))).toBe("");
  });

  test("/healthz is the app's: no ETag, and a conditional GET is answered in full", async () => {
    const first = await fetch(`${emu.url}/healthz`);
    expect(first.headers.get("etag")).toBeNull();
    expect(await first.json()).toEqual({ status: "ok" });
    const again = await fetch(`${emu.url}/healthz`, { headers: { "if-none-match": '"0"' } });
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ status: "ok" });
  });
});
