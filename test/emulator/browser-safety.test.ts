/**
 * The dashboard's session secret opens the control plane to this server's own page, not to other web pages: a
 * foreign Origin, a cross-site Sec-Fetch-Site, or a non-loopback Host (DNS rebinding) is refused even with the
 * secret; the admin token still opens it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  dashboardSession,
  expectEnvelope,
  startTestEmulator,
  stopTestEmulator,
  type TestEmulator,
} from "../helpers/emulator";
import { announce } from "../helpers/raw-http";

let emu: TestEmulator;
/** The session header, as the dashboard sends it after its login link. */
let session: { "x-ext-session": string };
beforeAll(async () => {
  emu = await startTestEmulator();
  session = { "x-ext-session": await dashboardSession(emu) };
});
afterAll(() => stopTestEmulator(emu));

const accounts = async () => (await emu.control.GET("/_emulator/state")).data?.counts.accounts;
// The requests below carry a browser's headers (Origin, Sec-Fetch-Site, a session): raw, with the key each names.

describe("POST /_emulator/reset from a browser page", () => {
  test("a foreign Origin (cross-site request forgery) is a 403 and nothing is wiped", async () => {
    const res = await emu.rawRequest("POST", "/_emulator/reset", {
      key: null,
      headers: { ...session, origin: "http://evil.example", "content-type": "text/plain" },
    });
    expectEnvelope(res, 403, "forbidden");
    expect(await accounts()).toBe(2);
  });

  test("Sec-Fetch-Site: cross-site or same-site is a 403", async () => {
    for (const site of ["cross-site", "same-site"]) {
      expectEnvelope(
        await emu.rawRequest("POST", "/_emulator/reset", {
          key: null,
          headers: { ...session, "sec-fetch-site": site },
        }),
        403,
        "forbidden",
      );
    }
    expect(await accounts()).toBe(2);
  });

  test("the server's own origin (the /docs page) is allowed", async () => {
    const res = await emu.rawRequest("GET", "/_emulator/state", {
      key: null,
      headers: { ...session, origin: emu.url, "sec-fetch-site": "same-origin" },
    });
    expect(res.status).toBe(200);
    // The same request without the session is anybody's: refused.
    const without = await emu.rawRequest("GET", "/_emulator/state", {
      key: null,
      headers: { origin: emu.url, "sec-fetch-site": "same-origin" },
    });
    expectEnvelope(without, 401, "unauthorized");
  });

  test("the admin token opens it whatever the Origin", async () => {
    const token = emu.runtime.control.adminToken;
    const res = await emu.rawRequest("GET", "/_emulator/state", {
      key: token,
      headers: { origin: "http://evil.example" },
    });
    expect(res.status).toBe(200);
  });
});

describe("GET /_emulator/state through DNS rebinding", () => {
  test("a Host that is not a loopback name is a 403", async () => {
    const answer = await announce(
      emu.port,
      "GET",
      "/_emulator/state",
      { Host: "rebound.evil.example:4780", "X-Ext-Session": session["x-ext-session"] },
      0,
    );
    expect(answer.status).toBe(403);
    expect(answer.body.error.code).toBe("forbidden");
  });

  test("localhost and 127.0.0.1 Hosts are fine", async () => {
    for (const host of [`localhost:${emu.port}`, `127.0.0.1:${emu.port}`]) {
      expect(
        (
          await announce(
            emu.port,
            "GET",
            "/_emulator/state",
            { Host: host, "X-Ext-Session": session["x-ext-session"] },
            0,
          )
        ).status,
      ).toBe(200);
    }
  });
});
