/**
 * The owner's ways in, besides a script's Authorization header: the dashboard's login (a one-time code posted
 * in a form body, or a script's admin token in a header, never either in a URL; traded for a session secret
 * sent back in a header, never a cookie), the server proof a client checks without sending the token, and the
 * private files that carry the token to the owner's tools. And the control-plane routes' own check: without
 * the gate's mark, none runs.
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
  DEMO_KEY,
  dashboardSession,
  expectEnvelope,
  jsonAt,
  postLoginCode,
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

const sameOrigin = { origin: "", "sec-fetch-site": "same-origin" };
/** A request addressed to this run's dashboard origin (the only one the login answers on). */
const onDashboard = () => ({ headers: { host: new URL(emu.dashboardUrl).host } });
const mint = () => emu.runtime.control.sessions.mintLogin();
const errorOf = async (res: Response) =>
  ((await res.json()) as { error: { code: string; message: string; status: number } }).error;
/** A request to the login path as a script or a page would send it. */
const loginRequest = (init: RequestInit & { query?: string } = {}) =>
  fetch(`${emu.dashboardUrl}/dashboard/login${init.query ?? ""}`, { redirect: "manual", ...init });

describe("the dashboard's login: a one-time code in a form body", () => {
  test("from the page `ext dashboard` opens (Origin null): a redirect to the dashboard with a session secret in the fragment (random, not the token or the code), no cookie", async () => {
    const { code } = mint();
    const res = await postLoginCode(emu.dashboardUrl, code);
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

  test("a code is taken from a local file's page (null), this server's own origin or a script (none); any other Origin is a 403 that spends nothing", async () => {
    const ways: Record<string, string>[] = [
      {},
      { origin: emu.dashboardUrl, "sec-fetch-site": "same-origin" },
      { origin: "null", "sec-fetch-site": "cross-site" },
    ];
    for (const headers of ways) expect((await postLoginCode(emu.dashboardUrl, mint().code, headers)).status).toBe(303);
    const { code } = mint();
    for (const origin of ["http://evil.example", `http://localhost:${emu.port}`, "http://127.0.0.1:1", "file://"]) {
      const res = await postLoginCode(emu.dashboardUrl, code, { origin });
      expect({ origin, status: res.status }).toEqual({ origin, status: 403 });
      expect((await errorOf(res)).message).toContain(`Origin "${origin}" is none of them`);
    }
    expect((await postLoginCode(emu.dashboardUrl, code)).status).toBe(303);
  });

  test("a code works once: used, it is refused as a wrong one is, and its id says it was used", async () => {
    const { id, code } = mint();
    expect((await emu.control.GET("/_emulator/dashboard-login/{id}", { params: { path: { id } } })).data).toEqual({
      id,
      state: "waiting",
    });
    expect((await postLoginCode(emu.dashboardUrl, code)).status).toBe(303);
    const again = await postLoginCode(emu.dashboardUrl, code);
    const refusal = expectEnvelope(
      { status: again.status, body: { error: await errorOf(again) } } as never,
      401,
      "unauthorized",
    );
    expect(refusal.message).toContain("used up or wrong");
    expect(refusal.message).toContain("Run `ext dashboard`");
    expect((await emu.control.GET("/_emulator/dashboard-login/{id}", { params: { path: { id } } })).data).toEqual({
      id,
      state: "used",
    });
    expect((await postLoginCode(emu.dashboardUrl, "x".repeat(32))).status).toBe(401);
  });

  test("the form is exactly one field `code`, urlencoded, under 1 KiB: anything else is refused with the envelope and spends nothing", async () => {
    const { code } = mint();
    const post = (body: string, headers: Record<string, string> = {}) =>
      loginRequest({
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
        body,
      });
    for (const [body, what] of [
      ["", "is required"],
      [`code=${code}&code=${code}`, "is given twice"],
      [`code=${code}&next=/x`, "got `next`"],
      ["code=a%20b", "is not a login code"],
    ] as const) {
      const res = await post(body);
      expect({ body, status: res.status }).toEqual({ body, status: 422 });
      expect((await errorOf(res)).message).toContain(what);
    }
    const typed = await post(`code=${code}`, { "content-type": "text/plain" });
    expect(typed.status).toBe(415);
    expect((await errorOf(typed)).code).toBe("unsupported_media_type");
    expect((await post(`code=${code}&pad=${"x".repeat(2000)}`)).status).toBe(413);
    // Chunked, so no length is declared: counted as it comes.
    const chunked = await loginRequest({
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new Blob([`code=${code}&pad=${"x".repeat(4000)}`]).stream(),
    });
    expect(chunked.status).toBe(413);
    expect((await postLoginCode(emu.dashboardUrl, code)).status).toBe(303);
  });

  test("a code expires after its lifetime on the machine's time, whatever the emulator's clock shows; a 401 envelope saying so", async () => {
    let now = 1_000_000;
    const sessions = createDashboardSessions(() => now);
    const control = { ...emu.runtime.control, sessions } as ControlPlane;
    const app = new Elysia()
      .use(answers([]))
      .use(errorHandler(createLogger("silent"), () => []))
      .use(dashboardLogin(control));
    const visit = async (code: string) => {
      const res = await app.handle(
        new Request("http://localhost/dashboard/login", {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: `code=${code}`,
        }),
      );
      const body = res.status === 303 ? null : ((await res.json()) as { error: { message: string } });
      return { status: res.status, body };
    };
    // Just inside the lifetime: it works.
    let minted = sessions.mintLogin();
    now += LOGIN_CODE_TTL_MS - 1;
    expect((await visit(minted.code)).status).toBe(303);
    // A fresh code, used at the end of its lifetime: refused, said to have expired, and its id says so.
    minted = sessions.mintLogin();
    now += LOGIN_CODE_TTL_MS;
    const expired = await visit(minted.code);
    const { message } = expectEnvelope({ status: expired.status, body: expired.body } as never, 401, "unauthorized");
    expect(message).toContain("has expired");
    expect(message).toContain("Run `ext dashboard`");
    expect(sessions.loginState(minted.id)).toBe("expired");
    // A machine clock set back does not make a code younger.
    minted = sessions.mintLogin();
    now -= 1;
    expect((await visit(minted.code)).body?.error.message).toContain("has expired");
    // The emulator's clock moved far ahead changes nothing: a new code still works.
    emu.clock.advance(30 * 86_400);
    try {
      expect((await visit(sessions.mintLogin().code)).status).toBe(303);
    } finally {
      emu.clock.reset();
    }
  });

  test("no code exists until one is asked for: a new server has none waiting", () => {
    const sessions = createDashboardSessions();
    expect(sessions.redeem("x".repeat(32))).toEqual({ refused: "wrong" });
    expect(sessions.loginState("anything")).toBeNull();
  });
});

describe("never a credential in a URL", () => {
  test("a GET with a code in the query is a 400 envelope, and the code is revoked (it may be in a log or a process list now)", async () => {
    const { id, code } = mint();
    for (const query of [`?token=${code}`, `?code=${code}`]) {
      const res = await emu.rawRequest("GET", `/dashboard/login${query}`, onDashboard());
      const { message } = expectEnvelope(res, 400, "bad_request");
      expect(message).toContain("never takes anything in the URL");
      expect(res.headers.get("location")).toBeNull();
    }
    expect((await emu.control.GET("/_emulator/dashboard-login/{id}", { params: { path: { id } } })).data).toEqual({
      id,
      state: "revoked",
    });
    const first = await emu.rawRequest("GET", `/dashboard/login?token=${mint().code}`, onDashboard());
    expect(expectEnvelope(first, 400, "bad_request").message).toContain("The login code this URL carried is revoked");
    // The revoked code, posted as the page would: refused, saying why.
    const next = mint();
    await emu.rawRequest("HEAD", `/dashboard/login?token=${next.code}`, onDashboard());
    expect(emu.runtime.control.sessions.loginState(next.id)).toBe("revoked");
    const res = await postLoginCode(emu.dashboardUrl, next.code);
    expect(res.status).toBe(401);
    expect((await errorOf(res)).message).toContain("was sent in a URL");
  });

  test("the admin token in the query opens nothing: a 400 envelope saying to treat it as exposed, no redirect, no session", async () => {
    for (const method of ["GET", "POST"]) {
      const res = await emu.rawRequest(
        method,
        `/dashboard/login?token=${emu.runtime.control.adminToken}`,
        onDashboard(),
      );
      const { message } = expectEnvelope(res, 400, "bad_request");
      expect(message).toContain("This URL carried the admin token: treat it as exposed");
      expect(res.headers.get("location")).toBeNull();
      expect(res.text).not.toContain(emu.runtime.control.adminToken);
    }
  });

  test("a GET without a query is a 405 (Allow: POST) saying to run `ext dashboard`", async () => {
    const res = await emu.rawRequest("GET", "/dashboard/login", onDashboard());
    const { message } = expectEnvelope(res, 405, "method_not_allowed");
    expect(res.headers.get("allow")).toBe("POST");
    expect(message).toContain("Run `ext dashboard`");
  });
});

describe("a script's login: the admin token in the Authorization header", () => {
  const bearer = () => ({ authorization: `Bearer ${emu.runtime.control.adminToken}` });

  test("logs in, any number of times, with no body", async () => {
    for (let i = 0; i < 2; i++) {
      const session = await sessionFromLogin(await loginRequest({ method: "POST", headers: bearer() }));
      expect((await emu.rawRequest("GET", "/_emulator/state", { headers: { "x-ext-session": session } })).status).toBe(
        200,
      );
    }
  });

  test("never from a page elsewhere, a local file's (Origin null) included: a 403 envelope", async () => {
    const pages: Record<string, string>[] = [
      { origin: "null" },
      { origin: "http://evil.example" },
      { "sec-fetch-site": "cross-site" },
    ];
    for (const headers of pages) {
      const res = await loginRequest({ method: "POST", headers: { ...bearer(), ...headers } });
      expect({ headers, status: res.status }).toEqual({ headers, status: 403 });
      expect((await errorOf(res)).message).toContain(
        "a page elsewhere, a local file included, can send only a one-time login code",
      );
    }
  });

  test("a wrong or malformed token is a 401; a token and a form together a 400", async () => {
    for (const authorization of [`Bearer ${"x".repeat(32)}`, "Basic abc", `Bearer ${DEMO_KEY}`]) {
      const res = await loginRequest({ method: "POST", headers: { authorization } });
      expect({ authorization, status: res.status }).toEqual({ authorization, status: 401 });
    }
    const both = await loginRequest({
      method: "POST",
      headers: { ...bearer(), "content-type": "application/x-www-form-urlencoded" },
      body: `code=${mint().code}`,
    });
    expect(both.status).toBe(400);
    expect((await errorOf(both)).message).toContain("not both");
  });

  test("a forged secret opens nothing", async () => {
    const session = await dashboardSession(emu);
    for (const forged of ["A".repeat(43), `${session}x`, session.slice(1), ""]) {
      const res = await emu.rawRequest("GET", "/_emulator/state", { headers: { "x-ext-session": forged } });
      expect({ forged, status: res.status }).toEqual({ forged, status: 401 });
    }
  });
});

describe("the sessions", () => {
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
});

describe("POST /_emulator/dashboard-login and GET /_emulator/dashboard-login/{id}", () => {
  test("mint a code (the owner only) and where to post it, a URL with no credential; the earlier code stops working, its id a 404", async () => {
    const before = mint();
    expectEnvelope(await emu.rawRequest("POST", "/_emulator/dashboard-login"), 401, "unauthorized");
    expectEnvelope(await emu.rawRequest("GET", `/_emulator/dashboard-login/${before.id}`), 401, "unauthorized");
    const minted = await emu.control.POST("/_emulator/dashboard-login");
    expect(minted.response.status).toBe(200);
    const { id, code, loginUrl } = minted.data!;
    expect(Object.keys(minted.data!).sort()).toEqual(["code", "id", "loginUrl"]);
    expect(loginUrl).toBe(`${emu.dashboardUrl}/dashboard/login`);
    expect(loginUrl).toMatch(new RegExp(`^http://[a-z2-7]{26}\\.localhost:${emu.port}/dashboard/login$`));
    expect(code).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(id).not.toBe(before.id);
    expect((await postLoginCode(emu.dashboardUrl, before.code)).status).toBe(401);
    const gone = await emu.control.GET("/_emulator/dashboard-login/{id}", { params: { path: { id: before.id } } });
    expect(gone.response.status).toBe(404);
    expect((gone.error as { error: { message: string } }).error.message).toContain("a newer one replaced it");
    expect((await postLoginCode(loginUrl.replace("/dashboard/login", ""), code)).status).toBe(303);
  });

  test("an id that is not one is a 422", async () => {
    expectEnvelope(
      await emu.rawRequest("GET", "/_emulator/dashboard-login/a.b", {
        key: null,
        headers: { authorization: `Bearer ${emu.runtime.control.adminToken}` },
      }),
      422,
      "validation_error",
    );
  });

  test("the ready file carries the admin token and no login code or link; it is private (0600)", async () => {
    const file = join(readyDir, "ready.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const ready = JSON.parse(readFileSync(file, "utf8"));
    expect(ready.adminToken).toBe(emu.runtime.control.adminToken);
    expect(Object.keys(ready).sort()).toEqual([
      "adminToken",
      "adminUrl",
      "apiKeys",
      "baseUrl",
      "dashboardUrl",
      "pid",
      "port",
      "url",
    ]);
    expect(JSON.stringify(ready)).not.toContain("/dashboard/login");
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
