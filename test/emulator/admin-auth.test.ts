/**
 * Who may call /_emulator: the admin token on every bind, loopback included; no header only with
 * --open-control-plane (loopback only); developer keys never.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ConfigError, parseServerConfig } from "../../server/base/config";
import {
  DEMO_KEY,
  expectEnvelope,
  jsonAt,
  startTestEmulator,
  stopTestEmulator,
  type TestEmulator,
} from "../helpers/emulator";

const ADMIN = "adm_test_token_0123456789abcdefghijklmnop";

describe("control plane on a loopback bind", () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator({ config: { adminToken: ADMIN } });
  });
  afterAll(() => stopTestEmulator(emu));

  test("without an Authorization header every control-plane route is a 401, loopback or not", async () => {
    // Another user of this machine reaches loopback too: nothing of the control plane without the token.
    for (const [method, path] of [
      ["GET", "/_emulator/state"],
      ["GET", "/_emulator/export?includeSecretValues=true"],
      ["POST", "/_emulator/accounts/acc_test/dashboard-key"],
      ["POST", "/_emulator/reset"],
      ["POST", "/_emulator/seed"],
    ] as const) {
      const res = await emu.rawRequest(method, path, { key: null });
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 401 });
      expect(res.headers.get("www-authenticate")).toContain("emulator-admin");
    }
    expect(jsonAt((await emu.rawRequest("GET", "/_emulator/state", { key: ADMIN })).body, "counts", "accounts")).toBe(
      2,
    );
  });

  test("a developer API key never opens it, even on loopback (401)", async () => {
    const res = await emu.rawRequest("GET", "/_emulator/state", { key: DEMO_KEY });
    const error = expectEnvelope(res, 401, "unauthorized");
    expect(error.message).toContain("This is a developer API key: it never opens the control plane");
    // Nor does it act: a reset sent with a developer key changes nothing.
    await emu.client.POST("/developer/v1/extensions", { body: { name: "Survivor" } });
    expectEnvelope(await emu.rawRequest("POST", "/_emulator/reset", { key: DEMO_KEY }), 401, "unauthorized");
    expect((await emu.client.GET("/developer/v1/extensions")).data?.extensions).toHaveLength(1);
  });

  test("a wrong admin token is told it is the wrong token, not that it is a developer key", async () => {
    const wrong = expectEnvelope(
      await emu.rawRequest("GET", "/_emulator/state", { key: "adm_not_the_right_token" }),
      401,
      "unauthorized",
    );
    expect(wrong.message).toStartWith("Wrong admin token");
    expect(wrong.message).not.toContain("developer API key");
    const malformed = await emu.rawRequest("GET", "/_emulator/state", {
      headers: { authorization: "Basic abc" },
      key: null,
    });
    expect(expectEnvelope(malformed, 401, "unauthorized").message).toStartWith("Malformed Authorization header");
  });

  test("the admin token opens it", async () => {
    expect((await emu.rawRequest("GET", "/_emulator/clock", { key: ADMIN })).status).toBe(200);
  });

  test("the admin token never opens the developer API (specific 401)", async () => {
    const error = expectEnvelope(await emu.clientFor(ADMIN).GET("/developer/v1/extensions"), 401, "unauthorized");
    expect(error.message).toBe("The admin token opens the control plane only; use a developer API key here.");
  });
});

describe("control plane on a non-loopback bind", () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    // Bound to every address; the harness connects through 127.0.0.1, but the bind is what counts.
    emu = await startTestEmulator({ config: { host: "0.0.0.0", adminToken: ADMIN } });
  });
  afterAll(() => stopTestEmulator(emu));

  test("no Authorization header → 401 with WWW-Authenticate", async () => {
    const res = await emu.rawRequest("GET", "/_emulator/state", { key: null });
    expectEnvelope(res, 401, "unauthorized");
    expect(res.headers.get("www-authenticate")).toContain("emulator-admin");
  });

  test("a developer key or a wrong token → 401", async () => {
    expectEnvelope(await emu.rawRequest("GET", "/_emulator/state", { key: DEMO_KEY }), 401, "unauthorized");
    expectEnvelope(await emu.rawRequest("POST", "/_emulator/reset", { key: `${ADMIN}x` }), 401, "unauthorized");
    expectEnvelope(
      await emu.rawRequest("GET", "/_emulator/state", { key: null, headers: { authorization: `Basic ${ADMIN}` } }),
      401,
      "unauthorized",
    );
  });

  test("Bearer <admin token> (any scheme case) → 200", async () => {
    expect((await emu.rawRequest("GET", "/_emulator/state", { key: ADMIN })).status).toBe(200);
    expect(
      (await emu.rawRequest("GET", "/_emulator/state", { key: null, headers: { authorization: `bearer ${ADMIN}` } }))
        .status,
    ).toBe(200);
  });

  test("the developer API still works with developer keys", async () => {
    expect((await emu.client.GET("/developer/v1/extensions")).response.status).toBe(200);
  });
});

describe("generated admin token", () => {
  test("without --admin-token a token is generated and exposed on the runtime", async () => {
    const emu = await startTestEmulator({ config: { host: "0.0.0.0" } });
    try {
      const { adminToken, adminTokenGenerated, open } = emu.runtime.control;
      expect(adminTokenGenerated).toBe(true);
      expect(open).toBe(false);
      expect(adminToken).toMatch(/^adm_[A-Za-z0-9_-]{43}$/);
      expectEnvelope(await emu.rawRequest("GET", "/_emulator/state", { key: null }), 401, "unauthorized");
      expect((await emu.rawRequest("GET", "/_emulator/state", { key: adminToken })).status).toBe(200);
    } finally {
      await stopTestEmulator(emu);
    }
  });
});

describe("--open-control-plane", () => {
  test("on loopback, lets requests without a header in (scripts), still not other web pages", async () => {
    const emu = await startTestEmulator({ config: { openControlPlane: true } });
    try {
      expect((await emu.rawRequest("GET", "/_emulator/state", { key: null })).status).toBe(200);
      const page = await emu.rawRequest("POST", "/_emulator/reset", {
        key: null,
        headers: { origin: "http://evil.example" },
      });
      expectEnvelope(page, 403, "forbidden");
      expectEnvelope(await emu.rawRequest("GET", "/_emulator/state", { key: DEMO_KEY }), 401, "unauthorized");
    } finally {
      await stopTestEmulator(emu);
    }
  });

  test("is refused with a non-loopback bind, by flag or environment", () => {
    expect(() => parseServerConfig({ host: "0.0.0.0", openControlPlane: true }, {})).toThrow(ConfigError);
    expect(() => parseServerConfig({}, { EXT_HOST: "192.0.2.1", EXT_OPEN_CONTROL_PLANE: "1" })).toThrow(
      /loopback address only/,
    );
    expect(parseServerConfig({}, { EXT_OPEN_CONTROL_PLANE: "1" }).openControlPlane).toBe(true);
    expect(parseServerConfig({}, {}).openControlPlane).toBe(false);
  });
});
