/** The listening server: health, base URL, and a port already in use. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { connect } from "node:net";
import { parseServerConfig } from "../server/base/config";
import { createLogger } from "../server/base/logger";
import { DRAIN_LIMIT_MS, PortInUseError, startServer } from "../server/start/server";
import { bundleDir } from "./helpers/bundles";
import { DEMO_KEY, startTestEmulator, stopTestEmulator, type TestEmulator } from "./helpers/emulator";
import { waitFor } from "./helpers/wait-for";

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => stopTestEmulator(emu));

describe("GET /healthz", () => {
  test("200 {status:ok} without auth", async () => {
    const res = await emu.rawRequest("GET", "/healthz");
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

  test("bound to 127.0.0.1, it answers on [::1] at the same port too, with the same gates", async () => {
    const res = await fetch(`http://[::1]:${emu.port}/healthz`);
    expect(res.status).toBe(200);
    const control = await fetch(`http://[::1]:${emu.port}/_emulator/state`);
    expect(control.status).toBe(401);
    const rebinding = await fetch(`http://[::1]:${emu.port}/healthz`, { headers: { host: "evil.example" } });
    expect(rebinding.status).toBe(403);
  });

  test("bound to another 127.x address, it holds 127.0.0.1 and [::1] at its port too: a browser sends the dashboard's name only there", async () => {
    // An IPv4-mapped address is the IPv4 one it names: [::1] is held beside it.
    for (const [host, addresses] of [
      ["127.0.0.2", ["127.0.0.2", "127.0.0.1", "[::1]"]],
      ["::ffff:127.0.0.1", ["127.0.0.1", "[::1]"]],
    ] as const) {
      const config = parseServerConfig({ host, port: 0, memory: true, logLevel: "silent" }, {});
      const other = startServer(config, { logger: createLogger("silent") });
      try {
        for (const address of addresses)
          expect({ host, address, status: (await fetch(`http://${address}:${other.port}/healthz`)).status }).toEqual({
            host,
            address,
            status: 200,
          });
      } finally {
        await other.stop(true);
      }
    }
  });

  test("[::1] at the port held by another program: the start fails, naming it, and leaves nothing listening", async () => {
    // The port is one the system gave the squatter on ::1; if some other program happens to hold 127.0.0.1 at
    // it, the start fails for that reason instead, and another port is drawn (never a fixed port assumed free).
    for (;;) {
      const squatter = Bun.serve({ hostname: "::1", port: 0, reusePort: false, fetch: () => new Response("mallory") });
      try {
        const config = parseServerConfig({ port: squatter.port, memory: true, logLevel: "silent" }, {});
        let message = "";
        try {
          await startServer(config, { logger: createLogger("silent") }).stop(true);
        } catch (e) {
          expect(e).toBeInstanceOf(PortInUseError);
          message = (e as Error).message;
        }
        if (message.includes(`on 127.0.0.1 is already in use`)) continue;
        expect(message).toContain(`port ${squatter.port} on ::1 is already in use by another program`);
        // 127.0.0.1 was let go again: with [::1] free, the same start succeeds.
        await squatter.stop(true);
        await startServer(config, { logger: createLogger("silent") }).stop(true);
        return;
      } finally {
        await squatter.stop(true);
      }
    }
  });
});

describe("stop()", () => {
  const bundles = bundleDir();
  afterAll(() => bundles.cleanup());

  /**
   * A raw upload of a real bundle, sent up to the middle of its bundle part; `rest()` sends the remainder.
   * Resolves once the server is writing the bundle to its temp file: the request is in flight.
   */
  async function uploadInFlight(emu: TestEmulator) {
    const ext = (await emu.client.POST("/developer/v1/extensions", { body: { name: "In flight" } })).data?.extension.id;
    if (!ext) throw new Error("the extension was not created");
    const bundle = readFileSync(await bundles.make());
    const body = Buffer.concat([
      Buffer.from(
        '--b\r\nContent-Disposition: form-data; name="version"\r\n\r\n1.0.0\r\n' +
          '--b\r\nContent-Disposition: form-data; name="bundle"; filename="b.tar.gz"\r\n\r\n',
      ),
      bundle,
      Buffer.from("\r\n--b--\r\n"),
    ]);
    const head = `POST /developer/v1/extensions/${ext}/versions HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${DEMO_KEY}\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: ${body.length}\r\n\r\n`;
    const sock = connect(emu.port, "127.0.0.1");
    sock.on("error", () => {});
    let answer = "";
    sock.on("data", (d) => (answer += d));
    const closed = new Promise<string>((resolve) => sock.once("close", () => resolve(answer)));
    const cut = body.length - 100;
    sock.write(Buffer.concat([Buffer.from(head), body.subarray(0, cut)]));
    await waitFor(() => readdirSync(emu.runtime.blobs.tmpDir).length > 0, "the bundle's temp file");
    return { closed, rest: () => sock.write(body.subarray(cut)) };
  }

  test("a graceful stop lets an in-flight request finish and answers it", async () => {
    // A limit far beyond the test's timeout: the stop can only end by the request finishing.
    const own = await startTestEmulator({ drainMs: 600_000 });
    try {
      const upload = await uploadInFlight(own);
      const stopping = own.stop();
      upload.rest();
      expect(await upload.closed).toStartWith("HTTP/1.1 202 ");
      await stopping;
    } finally {
      await stopTestEmulator(own);
    }
  });

  test("a graceful stop cuts a request still in flight when its drain limit is over", async () => {
    const own = await startTestEmulator({ drainMs: 50 });
    try {
      const stalled = await uploadInFlight(own); // its remainder is never sent
      await own.stop();
      expect(await stalled.closed).toBe(""); // the stalled client was cut, not left hanging or answered
    } finally {
      await stopTestEmulator(own);
    }
  });

  test("with nothing in flight, a graceful stop does not wait for its limit", async () => {
    const own = await startTestEmulator({ drainMs: 600_000 });
    try {
      expect((await own.rawRequest("GET", "/healthz")).status).toBe(200);
      await own.stop();
    } finally {
      await stopTestEmulator(own);
    }
  });

  test("the drain limit is 5 s unless told otherwise (docs/behaviour.md, README)", () => {
    expect(DRAIN_LIMIT_MS).toBe(5_000);
  });
});
