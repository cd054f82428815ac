/** The listening server: health, base URL, and a port already in use. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { parseServerConfig } from "../src/config";
import { createLogger } from "../src/logger";
import { PortInUseError, startServer } from "../src/server";
import { startTestEmulator, stopTestEmulator, type TestEmulator } from "./helpers/emulator";

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
