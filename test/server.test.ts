/** The listening server: health, base URL, and a port already in use. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { connect } from "node:net";
import { parseServerConfig } from "../src/config";
import { createLogger } from "../src/logger";
import { DRAIN_LIMIT_MS, PortInUseError, startServer } from "../src/server";
import { DEMO_KEY, startTestEmulator, stopTestEmulator, type TestEmulator } from "./helpers/emulator";

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => stopTestEmulator(emu));

describe("GET /healthz", () => {
  test("200 {status:ok} without auth", async () => {
    const res = await emu.raw("GET", "/healthz", { key: null });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ok" });
  });
});

describe("startServer", () => {
  test("reports a base URL ending in /developer/v1 on the port it got", () => {
    expect(emu.port).toBeGreaterThan(0);
    expect(emu.baseUrl).toBe(`http://127.0.0.1:${emu.port}/developer/v1`);
  });

  test("a port already in use → PortInUseError, not a shared port", () => {
    const config = parseServerConfig({ port: emu.port, memory: true, logLevel: "silent" }, {});
    expect(() => startServer(config, { logger: createLogger("silent") })).toThrow(PortInUseError);
  });
});

describe("stop()", () => {
  test(
    `a graceful stop waits for in-flight requests at most ${DRAIN_LIMIT_MS} ms, then cuts the connections left`,
    async () => {
      const own = await startTestEmulator();
      try {
        const ext = (await own.api("POST", "/extensions", { json: { name: "Stalled" } })).body.extension.id;
        // An upload that announces 10 MB, sends 100 KB and stalls: a request that never finishes by itself.
        const sock = connect(own.port, "127.0.0.1");
        await new Promise((resolve) => sock.once("connect", resolve));
        const closed = new Promise<void>((resolve) => sock.once("close", () => resolve()));
        sock.on("error", () => {});
        const head = `POST /developer/v1/extensions/${ext}/versions HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${DEMO_KEY}\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: 10000000\r\n\r\n`;
        sock.write(
          head +
            '--b\r\nContent-Disposition: form-data; name="bundle"; filename="b.tar.gz"\r\n\r\n' +
            "x".repeat(100_000),
        );
        // In flight once the server is writing the bundle part to its temp file: wait for that, not a fixed time.
        for (let i = 0; i < 500 && readdirSync(own.runtime.blobs.tmpDir).length === 0; i++) await Bun.sleep(10);
        expect(readdirSync(own.runtime.blobs.tmpDir).length).toBe(1);
        const started = performance.now();
        await own.stop();
        const took = performance.now() - started;
        expect(took).toBeGreaterThanOrEqual(DRAIN_LIMIT_MS - 50);
        expect(took).toBeLessThan(DRAIN_LIMIT_MS + 2_000);
        await closed; // the stalled client was cut, not left hanging
      } finally {
        await stopTestEmulator(own);
      }
    },
    DRAIN_LIMIT_MS + 10_000,
  );

  test("with nothing in flight, a graceful stop is immediate", async () => {
    const own = await startTestEmulator();
    try {
      expect((await own.raw("GET", "/healthz", { key: null })).status).toBe(200);
      const started = performance.now();
      await own.stop();
      expect(performance.now() - started).toBeLessThan(1_000);
    } finally {
      await stopTestEmulator(own);
    }
  });
});
