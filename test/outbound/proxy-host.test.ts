/**
 * `ext proxy` listens on loopback and applies the emulator's own Host check (server/http/host-check.ts): a page
 * that re-points its name at 127.0.0.1 (DNS rebinding) is answered 403 by the proxy as by the emulator, and
 * the upstream never sees the request. Requests addressed by a loopback name still pass.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startProxy } from "../../tools/conformance/proxy";
import { rawExchange } from "../helpers/raw-http";

let upstream: ReturnType<typeof Bun.serve>;
const seen: string[] = [];
let proxy: Awaited<ReturnType<typeof startProxy>>;
let port: number;
beforeAll(async () => {
  upstream = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      // The proxy's challenge, which holds the upstream to its first answer, is not traffic it forwards.
      if (new URL(req.url).searchParams.has("challenge")) return Response.json({ status: "ok" });
      seen.push(`${req.method} ${new URL(req.url).pathname}`);
      return Response.json({ extensions: [] });
    },
  });
  proxy = await startProxy({ upstream: `http://127.0.0.1:${upstream.port}` });
  port = Number(new URL(proxy.url).port);
});
afterAll(async () => {
  await proxy.stop();
  upstream.stop(true);
});

const get = (host: string) =>
  rawExchange(
    "127.0.0.1",
    port,
    `GET /developer/v1/extensions HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ext_demo\r\nConnection: close\r\n\r\n`,
  );

test("a rebinding page's Host is refused with the emulator's 403; the upstream sees nothing", async () => {
  for (const host of [`rebind.example:${port}`, "attacker.test", `192.168.1.20:${port}`]) {
    const r = await get(host);
    expect({ host, status: r.status, code: r.body?.error?.code }).toEqual({ host, status: 403, code: "forbidden" });
    expect(r.text).toContain("DNS rebinding");
  }
  expect(seen).toEqual([]);
});

test("a malformed Host is a 400, as the emulator answers it", async () => {
  const r = await get("x/y");
  expect(r.status).toBe(400);
  expect(seen).toEqual([]);
});

test("the tools' challenge passes through and is no exchange of the report", async () => {
  const r = await rawExchange(
    "127.0.0.1",
    port,
    `GET /healthz?challenge=abcdefghijklmnopqrstuvwx HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`,
  );
  expect(r.status).toBe(200);
  await proxy.settled();
  expect(proxy.log.report().exchanges).toBe(0);
});

test("requests addressed to a loopback name pass through", async () => {
  for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, "[::1]"]) {
    const r = await get(host);
    expect({ host, status: r.status }).toEqual({ host, status: 200 });
  }
  expect(seen).toHaveLength(3);
});
