/**
 * The owner's ways in, besides a script's Authorization header: the dashboard's one-time login link (a session
 * secret, sent back in a header; never a cookie), the server proof a client checks without sending the token, and the private files that carry the
 * token to the owner's tools. And the control-plane routes' own check: without the gate's mark, none runs.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Elysia } from "elysia";
import { LOGIN_CODE_TTL_MS } from "../../common/dashboard-links";
import { checkServerProof, serverProof } from "../../common/server-proof-hmac";
import { createLogger } from "../../server/base/logger";
import { controlPlaneRoutes } from "../../server/control-plane/routes";
import { dashboardLogin } from "../../server/dashboard/login";
import { errorHandler } from "../../server/errors/handler";
import { answers } from "../../server/http/request-context";
import type { ControlPlane } from "../../server/runtime/control-state/control";
import { createDashboardSessions } from "../../server/runtime/control-state/dashboard-session";
import {
  dashboardSession,
  expectEnvelope,
  jsonAt,
  sessionFromLogin,
  startTestEmulator,
  stopTestEmulator,
  type TestEmulator,
} from "../helpers/emulator";

let emu: TestEmulator;
let readyDir: string;
beforeAll(async () => {
  readyDir = mkdtempSync(join(tmpdir(), "ext-ready-"));
  emu = await startTestEmulator({ config: { readyFile: join(readyDir, "ready.json") } });
});
afterAll(async () => {
  await stopTestEmulator(emu);
  rmSync(readyDir, { recursive: true, force: true });
});

const login = (token: string) => fetch(`${emu.url}/dashboard/login?token=${token}`, { redirect: "manual" });
const sameOrigin = { origin: "", "sec-fetch-site": "same-origin" };

describe("the dashboard's login link", () => {
  test("redirects to the dashboard with a session secret in the fragment (random, not the token or the code), and sets no cookie", async () => {
    const code = emu.runtime.control.sessions.loginCode();
    const res = await login(code);
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toMatch(/^\/#session=[A-Za-z0-9_-]{43}$/);
    expect(res.headers.get("set-cookie")).toBeNull();
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    const session = await sessionFromLogin(res);
    expect(session).not.toContain(emu.runtime.control.adminToken);
    expect(session).not.toContain(code);
    const state = await emu.rawRequest("GET", "/_emulator/state", {
      headers: { "x-ext-session": session, ...sameOrigin, origin: emu.url },
    });
    expect(state.status).toBe(200);
  });

  test("a cookie alone never opens the control plane: another port's server on the same host would have received it", async () => {
    const session = await dashboardSession(emu);
    // Every name a cookie could have carried it under, the old per-port one included; and a script's request
    // (no Origin) as well as a same-origin one.
    const cookies = [`ext_session_${emu.port}=${session}`, `ext_session=${session}`, `x-ext-session=${session}`];
    for (const cookie of cookies) {
      for (const headers of [{ cookie }, { cookie, ...sameOrigin, origin: emu.url }]) {
        for (const path of ["/_emulator/state", "/_emulator/export?includeSecretValues=true"]) {
          const res = await emu.rawRequest("GET", path, { headers });
          expect({ cookie, path, status: res.status }).toEqual({ cookie, path, status: 401 });
        }
      }
    }
    // The header opens it, the secret being the same.
    const res = await emu.rawRequest("GET", "/_emulator/export?includeSecretValues=true", {
      headers: { "x-ext-session": session },
    });
    expect(res.status).toBe(200);
  });

  test("a session secret from one server is refused by another on the same host", async () => {
    const other = await startTestEmulator();
    try {
      const mine = await dashboardSession(emu);
      const theirs = await dashboardSession(other);
      for (const [server, secret] of [
        [other, mine],
        [emu, theirs],
      ] as const) {
        const res = await server.rawRequest("GET", "/_emulator/state", { headers: { "x-ext-session": secret } });
        expectEnvelope(res, 401, "unauthorized");
      }
      const own = await other.rawRequest("GET", "/_emulator/state", { headers: { "x-ext-session": theirs } });
      expect(own.status).toBe(200);
    } finally {
      await stopTestEmulator(other);
    }
  });

  test("a HEAD of the link (a link checker, a preview) does not use it up", async () => {
    const code = emu.runtime.control.sessions.loginCode();
    const head = await fetch(`${emu.url}/dashboard/login?token=${code}`, { method: "HEAD", redirect: "manual" });
    expect(head.status).toBe(204);
    expect(head.headers.get("cache-control")).toBe("no-store");
    expect((await login(code)).status).toBe(303);
  });

  test("the code works once; a new one is minted for the next link", async () => {
    const code = emu.runtime.control.sessions.loginCode();
    expect((await login(code)).status).toBe(303);
    const again = await login(code);
    expect(again.status).toBe(401);
    const { message } = ((await again.json()) as { error: { message: string } }).error;
    expect(message).toContain("used up or wrong");
    expect(message).toContain("Run `ext dashboard`");
    expect(emu.runtime.control.sessions.loginCode()).not.toBe(code);
  });

  test("a code expires after its lifetime on the machine's time, whatever the emulator's clock shows; the same 401 envelope, saying so", async () => {
    let now = 1_000_000;
    const sessions = createDashboardSessions("adm_expiry", () => now);
    const control = { url: "http://127.0.0.1:1", sessions } as unknown as ControlPlane;
    const app = new Elysia()
      .use(answers([]))
      .use(errorHandler(createLogger("silent"), () => []))
      .use(dashboardLogin(control));
    const visit = async (token: string) => {
      const res = await app.handle(new Request(`http://localhost/dashboard/login?token=${token}`));
      const body = res.status === 303 ? null : ((await res.json()) as { error: { message: string } });
      return { status: res.status, body };
    };
    // Just inside the lifetime: it works.
    now += LOGIN_CODE_TTL_MS - 1;
    expect((await visit(sessions.loginCode())).status).toBe(303);
    // A fresh code, visited at the end of its lifetime: refused, said to have expired, and used up.
    const code = sessions.loginCode();
    now += LOGIN_CODE_TTL_MS;
    const expired = await visit(code);
    const { message } = expectEnvelope({ status: expired.status, body: expired.body } as never, 401, "unauthorized");
    expect(message).toContain("has expired");
    expect(message).toContain("Run `ext dashboard`");
    expect((await visit(code)).body?.error.message).toContain("used up or wrong");
    // A machine clock set back does not make a code younger.
    const back = sessions.loginCode();
    now -= 1;
    expect((await visit(back)).body?.error.message).toContain("has expired");
    // The emulator's clock moved far ahead changes nothing: a new code still works.
    emu.clock.advance(30 * 86_400);
    try {
      expect((await visit(sessions.mintLoginCode())).status).toBe(303);
    } finally {
      emu.clock.reset();
    }
  });

  test("the admin token itself logs in too; a wrong code or a forged secret opens nothing", async () => {
    expect((await login(emu.runtime.control.adminToken)).status).toBe(303);
    expectEnvelope(await emu.rawRequest("GET", `/dashboard/login?token=${"x".repeat(32)}`), 401, "unauthorized");
    const session = await dashboardSession(emu);
    for (const forged of ["A".repeat(43), `${session}x`, session.slice(1), ""]) {
      const res = await emu.rawRequest("GET", "/_emulator/state", { headers: { "x-ext-session": forged } });
      expect({ forged, status: res.status }).toEqual({ forged, status: 401 });
    }
  });

  test("POST /_emulator/dashboard-login mints a new link (the owner only); the earlier one stops working", async () => {
    const before = emu.runtime.control.sessions.loginCode();
    expectEnvelope(await emu.rawRequest("POST", "/_emulator/dashboard-login"), 401, "unauthorized");
    const minted = await emu.control.POST("/_emulator/dashboard-login");
    expect(minted.response.status).toBe(200);
    const url = minted.data?.url ?? "";
    expect(url).toStartWith(`${emu.url}/dashboard/login?token=`);
    expect(url).not.toContain(before);
    expect((await login(before)).status).toBe(401);
    expect((await fetch(url, { redirect: "manual" })).status).toBe(303);
  });

  test("the ready file carries the admin token and a working login link; it is private (0600)", async () => {
    const file = join(readyDir, "ready.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const ready = JSON.parse(readFileSync(file, "utf8"));
    expect(ready.adminToken).toBe(emu.runtime.control.adminToken);
    expect(ready.dashboardLoginUrl).toMatch(
      new RegExp(`^${emu.url.replace(/[.]/g, "\\.")}/dashboard/login\\?token=[A-Za-z0-9_-]{32}$`),
    );
  });
});

describe("server.json", () => {
  test("holds the admin token, readable by its owner only", () => {
    const file = join(emu.dataDir, "server.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const info = JSON.parse(readFileSync(file, "utf8"));
    expect(info).toEqual({ url: emu.url, pid: process.pid, adminToken: emu.runtime.control.adminToken });
  });
});

describe("GET /healthz?challenge=", () => {
  const nonce = "n0nce_of-the-client_0123456789";

  test("answers the HMAC of the nonce and the server's URL keyed by the admin token", async () => {
    // Without credentials, as the CLI asks a server it has not verified yet.
    const res = await emu.rawRequest("GET", `/healthz?challenge=${nonce}`);
    expect(res.status).toBe(200);
    expect(jsonAt(res.body, "status")).toBe("ok");
    const token = emu.runtime.control.adminToken;
    const proof = String(jsonAt(res.body, "proof"));
    expect(proof).toBe(serverProof(token, nonce, emu.url));
    expect(checkServerProof(token, nonce, emu.url, proof)).toBe(true);
    // Bound to the URL, the nonce and the token: any other gives another proof.
    expect(checkServerProof(token, nonce, "http://127.0.0.1:1", proof)).toBe(false);
    expect(checkServerProof(`${token}x`, nonce, emu.url, proof)).toBe(false);
    expect(res.text).not.toContain(token);
  });

  test("the message is exactly ext-server-proof, the nonce and the url, one per line", async () => {
    const { createHmac } = await import("node:crypto");
    const expected = createHmac("sha256", "adm_k").update(`ext-server-proof\n${nonce}\nhttp://127.0.0.1:4780`);
    expect(serverProof("adm_k", nonce, "http://127.0.0.1:4780")).toBe(expected.digest("base64url"));
  });

  test("a nonce that is too short, too long or not base64url is a 422; none at all is plain liveness", async () => {
    for (const bad of ["short", "x".repeat(129), `${"a".repeat(22)}%2F`, `${"a".repeat(22)}.`]) {
      expectEnvelope(await emu.rawRequest("GET", `/healthz?challenge=${bad}`), 422, "validation_error");
    }
    expect((await emu.rawRequest("GET", "/healthz")).body).toEqual({ status: "ok" });
  });
});

describe("control-plane routes without the gate", () => {
  test("refuse every request the admin gate did not mark (fail closed)", async () => {
    // The routes alone, as if a slip in reading a path had let a request past the gate.
    const app = new Elysia()
      .use(answers([]))
      .use(errorHandler(createLogger("silent"), () => []))
      .use(controlPlaneRoutes(emu.runtime));
    for (const [method, path] of [
      ["GET", "/_emulator/state"],
      ["POST", "/_emulator/reset"],
      ["GET", "/_emulator/export?includeSecretValues=true"],
      ["POST", "/_emulator/accounts/acc_test/dashboard-key"],
    ]) {
      const res = await app.handle(
        new Request(`http://localhost${path}`, {
          method,
          headers: { authorization: `Bearer ${emu.runtime.control.adminToken}` },
        }),
      );
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 401 });
    }
    // A body is not even read: an export archive would be staged to disk by the seed route's parser.
    const staged = await app.handle(
      new Request("http://localhost/_emulator/seed", {
        method: "POST",
        headers: { "content-type": "application/x-tar" },
        body: new Uint8Array(1024),
      }),
    );
    expect(staged.status).toBe(401);
    const json = await app.handle(
      new Request("http://localhost/_emulator/seed", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ accounts: [{ id: "acc_intruder", name: "Intruder" }] }),
      }),
    );
    expect(json.status).toBe(401);
    expect((await emu.control.GET("/_emulator/state")).data?.counts.accounts).toBe(2);
  });
});
