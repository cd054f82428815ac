/**
 * DNS rebinding: bound to loopback, the server answers only requests addressed to it by a loopback name or
 * address (any port), on every route; a page whose name was re-pointed at 127.0.0.1 gets the 403 envelope,
 * even with the published demo key. Bound elsewhere, the Host is not checked.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { isLoopback, isLoopbackHostname } from "../../common/addresses";
import { hostGate } from "../../server/http/host-check";
import { requestTarget } from "../../server/http/request-url";
import {
  DEMO_KEY,
  errorOf,
  expectEnvelope,
  startTestEmulator,
  stopTestEmulator,
  type TestEmulator,
} from "../helpers/emulator";

const REBOUND = "rebind.example:4780";

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => stopTestEmulator(emu));

const extensionCount = async () => (await emu.client.GET("/developer/v1/extensions")).data?.extensions.length;
/** Raw, with the Host header a rebinding page (or a test) chooses. */
const withHost = (host: string, path = "/developer/v1/extensions", key: string | null = DEMO_KEY) =>
  emu.rawRequest("GET", path, { key, headers: { host } });

describe("a rebinding page on a loopback bind", () => {
  test("lists nothing and creates nothing with the demo key: 403 forbidden in the envelope", async () => {
    const before = await extensionCount();
    const list = await withHost(REBOUND);
    const error = expectEnvelope(list, 403, "forbidden");
    expect(error.message).toContain(`Host "${REBOUND}" is not a name this server answers to`);
    expectEnvelope(
      await emu.rawRequest("POST", "/developer/v1/extensions", {
        key: DEMO_KEY,
        json: { name: "Rebound" },
        headers: { host: REBOUND },
      }),
      403,
      "forbidden",
    );
    expect(await extensionCount()).toBe(before);
  });

  test("every route is refused, whatever the key: developer API, control plane, docs, dashboard, unknown paths", async () => {
    const paths = [
      "/developer/v1/extensions",
      "/v1/developer/extensions/ext_x/limits",
      "/_emulator/state",
      "/openapi.json",
      "/docs",
      "/",
      "/no/such/route",
    ];
    for (const path of paths) {
      for (const key of [DEMO_KEY, null, emu.runtime.control.adminToken]) {
        const res = await withHost(REBOUND, path, key);
        expect({ path, key, status: res.status, code: errorOf(res.body)?.code }).toEqual({
          path,
          key,
          status: 403,
          code: "forbidden",
        });
      }
    }
  });

  test("names that only resolve here are let in, on any port", async () => {
    for (const host of [
      "localhost",
      "localhost:1",
      "LOCALHOST:4780",
      "app.localhost:80",
      "127.0.0.1",
      "127.8.9.10:4780",
      "[::1]:4780",
    ]) {
      const res = await withHost(host);
      expect({ host, status: res.status }).toEqual({ host, status: 200 });
    }
    expect((await withHost("localhost", "/healthz", null)).status).toBe(200);
  });

  test("look-alikes are not loopback names", async () => {
    for (const host of [
      "localhost.evil.example",
      "127.0.0.1.evil.example",
      "evil-localhost",
      "128.0.0.1",
      "[::2]",
      "0.0.0.0",
    ]) {
      const res = await withHost(host);
      expect({ host, status: res.status }).toEqual({ host, status: 403 });
    }
    // No name at all is not a request this server can place: refused before the Host check (server/http/request-url.ts).
    expectEnvelope(await withHost(""), 400, "bad_request");
  });

  test("/healthz follows the same rule as every other route", async () => {
    const res = await withHost(REBOUND, "/healthz", null);
    expectEnvelope(res, 403, "forbidden");
  });
});

describe("loopback names", () => {
  test("isLoopbackHostname: localhost and its subdomains, 127.0.0.0/8, [::1]", () => {
    for (const h of ["localhost", "Localhost", "a.b.localhost", "127.0.0.1", "127.255.255.255", "[::1]"])
      expect({ h, ok: isLoopbackHostname(h) }).toEqual({ h, ok: true });
    for (const h of [".localhost", "localhost.", "127.256.0.1", "127.0.0", "::1", "[::ffff:127.0.0.1]", "1.2.3.4"])
      expect({ h, ok: isLoopbackHostname(h) }).toEqual({ h, ok: false });
  });

  test("a host let through, or found well formed, leaves the next one to be checked on its own", () => {
    const gate = hostGate(["ext"]);
    for (const [host, ok] of [
      ["localhost:4780", true],
      ["localhost:4780", true],
      [REBOUND, false],
      ["ext:1", true],
      ["localhost:4780", true],
      [REBOUND, false],
    ] as const) {
      const refused = (() => {
        try {
          gate(host);
          return false;
        } catch {
          return true;
        }
      })();
      expect({ host, refused }).toEqual({ host, refused: !ok });
    }
    const target = (host: string) =>
      requestTarget(new Request("http://127.0.0.1:1/x", { headers: { host } }), `http://${host}/x`);
    expect(target("127.0.0.1:1")).toEqual({ host: "127.0.0.1:1" });
    expect(target("127.0.0.1:1")).toEqual({ host: "127.0.0.1:1" });
    expect(
      "problem" in
        requestTarget(new Request("http://127.0.0.1:1/x", { headers: { host: "a/b" } }), "http://127.0.0.1:1/x"),
    ).toBe(true);
    expect("problem" in requestTarget(new Request("http://127.0.0.1:1/x"), "http:///x")).toBe(true);
    expect(target("127.0.0.1:1")).toEqual({ host: "127.0.0.1:1" });
  });

  test("a bind address is loopback by the same rule (plus a bare ::1)", () => {
    expect(isLoopback("::1")).toBe(true);
    expect(isLoopback("127.0.0.2")).toBe(true);
    expect(isLoopback("0.0.0.0")).toBe(false);
  });
});

describe("a server bound to every interface with --allowed-hosts", () => {
  test("answers the names given and loopback ones, refuses any other, /healthz included", async () => {
    const named = await startTestEmulator({ config: { host: "0.0.0.0", allowedHosts: ["ext", "build-box.lan"] } });
    const get = (path: string, host: string) =>
      fetch(`${named.url}${path}`, { headers: { authorization: `Bearer ${DEMO_KEY}`, host } });
    try {
      for (const host of ["ext:4780", "BUILD-BOX.lan", "localhost:4780", "127.0.0.1"])
        expect({ host, status: (await get("/developer/v1/extensions", host)).status }).toEqual({ host, status: 200 });
      for (const path of ["/developer/v1/extensions", "/healthz"])
        expect({ path, status: (await get(path, "rebind.example")).status }).toEqual({ path, status: 403 });
    } finally {
      await stopTestEmulator(named);
    }
  });
});

describe("a server bound to every interface", () => {
  test("does not check the Host: the developer API answers a name of the network", async () => {
    const open = await startTestEmulator({ config: { host: "0.0.0.0" } });
    try {
      const res = await fetch(`${open.baseUrl.replace("0.0.0.0", "127.0.0.1")}/extensions`, {
        headers: { authorization: `Bearer ${DEMO_KEY}`, host: "build-box.lan:4780" },
      });
      expect(res.status).toBe(200);
    } finally {
      await stopTestEmulator(open);
    }
  });
});
