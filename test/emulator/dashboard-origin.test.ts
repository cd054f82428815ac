/**
 * The dashboard's own origin, `http://<label>.localhost:port`, new at each start: the page, its scripts and the
 * login answer there only; any other name (127.0.0.1, localhost, an earlier run's label) gets a page without
 * script that clears its origin's storage, and an earlier label is refused on every route. And the dashboard's
 * exchange of the admin token for a session (a script's login).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DASHBOARD_LABEL_PATTERN, isDashboardHostname } from "../../common/dashboard-links";
import { JSON_MEDIA_TYPE } from "../../server/http/answer-headers";
import { newDashboardLabel } from "../../server/runtime/control-state/dashboard-session";
import {
  postLoginCode,
  sessionFromLogin,
  startTestEmulator,
  stopTestEmulator,
  type TestEmulator,
} from "../helpers/emulator";

let emu: TestEmulator;
beforeAll(async () => (emu = await startTestEmulator()));
afterAll(() => stopTestEmulator(emu));

const mint = () => emu.runtime.control.sessions.mintLogin();
const dashboardHost = () => new URL(emu.dashboardUrl).host;
/** An earlier run's label: the shape of one, not this run's. */
const oldLabelHost = () => `${newDashboardLabel()}.localhost:${emu.port}`;

describe("a label per run", () => {
  test("130 random bits in lowercase base32: 26 letters and digits, a DNS label, never the same twice", () => {
    const labels = new Set(Array.from({ length: 200 }, () => newDashboardLabel()));
    expect(labels.size).toBe(200);
    for (const label of labels) expect(label).toMatch(DASHBOARD_LABEL_PATTERN);
    expect(emu.dashboardUrl).toBe(`http://${emu.runtime.control.dashboardLabel}.localhost:${emu.port}`);
    expect(isDashboardHostname(new URL(emu.dashboardUrl).hostname)).toBe(true);
  });

  test("a new start draws a new one", async () => {
    const other = await startTestEmulator();
    try {
      expect(other.runtime.control.dashboardLabel).not.toBe(emu.runtime.control.dashboardLabel);
    } finally {
      await stopTestEmulator(other);
    }
  });
});

describe("the dashboard answers on its own origin only", () => {
  test("its page and scripts are served there", async () => {
    const page = await fetch(`${emu.dashboardUrl}/`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("<script");
    const script = /src="(\/ui\/[^"]+\.js)"/.exec(html)![1]!;
    expect((await fetch(emu.dashboardUrl + script)).status).toBe(200);
  });

  test("addressed by any other name, the same paths get a page without script that clears the origin's storage, never the app", async () => {
    const page = await fetch(`${emu.dashboardUrl}/`);
    const script = /src="(\/ui\/[^"]+\.js)"/.exec(await page.text())![1]!;
    const hosts = [`127.0.0.1:${emu.port}`, `localhost:${emu.port}`, `[::1]:${emu.port}`, `app.localhost:${emu.port}`];
    for (const host of hosts)
      for (const path of ["/", "/?account=acc_x", script, "/ui/nope.js"]) {
        const res = await fetch(`${emu.url}${path}`, { headers: { host } });
        const text = await res.text();
        expect({ host, path, status: res.status }).toEqual({ host, path, status: 404 });
        expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
        expect(res.headers.get("clear-site-data")).toBe('"storage"');
        expect(res.headers.get("content-security-policy")).toStartWith("default-src 'none'");
        expect(text).not.toContain("<script");
        expect(text).toContain("ext dashboard");
      }
  });

  test("the login is not there either: a code posted to another name logs nobody in and stays good for the dashboard's origin", async () => {
    const { id, code } = mint();
    for (const url of [emu.url, `http://localhost:${emu.port}`]) {
      const res = await postLoginCode(url, code);
      expect(res.status).toBe(404);
      expect(res.headers.get("location")).toBeNull();
      expect(await res.text()).not.toContain("session");
    }
    const admin = await fetch(`${emu.url}/dashboard/login`, {
      method: "POST",
      headers: { authorization: `Bearer ${emu.runtime.control.adminToken}` },
      redirect: "manual",
    });
    expect(admin.status).toBe(404);
    expect(admin.headers.get("location")).toBeNull();
    expect(emu.runtime.control.sessions.loginState(id)).toBe("waiting");
    expect((await postLoginCode(emu.dashboardUrl, code)).status).toBe(303);
  });

  test("a code in a URL is revoked whatever name it was addressed by", async () => {
    const { id, code } = mint();
    expect((await fetch(`${emu.url}/dashboard/login?code=${code}`)).status).toBe(404);
    expect(emu.runtime.control.sessions.loginState(id)).toBe("revoked");
  });

  test("an earlier run's label is refused on every route (a stale tab's requests are not taken), saying to run `ext dashboard`", async () => {
    const host = oldLabelHost();
    const session = await sessionFromLogin(await postLoginCode(emu.dashboardUrl, mint().code));
    for (const [path, headers] of [
      ["/", {}],
      ["/healthz", {}],
      ["/_emulator/state", { "x-ext-session": session, origin: `http://${host}` }],
      ["/developer/v1/extensions", {}],
    ] as const) {
      const res = await fetch(`${emu.url}${path}`, { headers: { host, ...headers } });
      // And whatever another program left in that origin while it held the port (a service worker) is cleared.
      expect({ path, status: res.status, clear: res.headers.get("clear-site-data") }).toEqual({
        path,
        status: 403,
        clear: '"storage"',
      });
      expect(((await res.json()) as { error: { message: string } }).error.message).toContain(
        "dashboard address of an earlier run",
      );
    }
    // This run's label, the same session: let in.
    const ok = await fetch(`${emu.dashboardUrl}/_emulator/state`, {
      headers: { "x-ext-session": session, origin: emu.dashboardUrl, "sec-fetch-site": "same-origin" },
    });
    expect(ok.status).toBe(200);
    // Other names under .localhost keep working for the API (a test suite may use one).
    expect((await fetch(`${emu.url}/healthz`, { headers: { host: `app.localhost:${emu.port}` } })).status).toBe(200);
    expect(dashboardHost()).not.toBe(host);
  });
});

describe("the admin token, traded at once for a session (a script's login)", () => {
  const exchange = (headers: Record<string, string>) =>
    fetch(`${emu.dashboardUrl}/dashboard/login`, {
      method: "POST",
      headers: { accept: "application/json", ...headers },
      redirect: "manual",
    });

  test("a request asking for JSON gets the session in the body, not stored by any cache", async () => {
    const res = await exchange({
      authorization: `Bearer ${emu.runtime.control.adminToken}`,
      origin: emu.dashboardUrl,
      "sec-fetch-site": "same-origin",
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("content-type")).toBe(JSON_MEDIA_TYPE);
    expect(res.headers.get("set-cookie")).toBeNull();
    const { session } = (await res.json()) as { session: string };
    expect(session).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(session).not.toContain(emu.runtime.control.adminToken);
    const state = await fetch(`${emu.dashboardUrl}/_emulator/state`, {
      headers: { "x-ext-session": session, origin: emu.dashboardUrl, "sec-fetch-site": "same-origin" },
    });
    expect(state.status).toBe(200);
  });

  test("from another page, or with a wrong token, nothing", async () => {
    const token = `Bearer ${emu.runtime.control.adminToken}`;
    const refused: Record<string, string>[] = [
      { authorization: token, origin: `http://127.0.0.1:${emu.port}` },
      { authorization: token, origin: "null" },
      { authorization: token, "sec-fetch-site": "cross-site" },
      { authorization: `Bearer adm_${"x".repeat(43)}`, origin: emu.dashboardUrl },
    ];
    for (const headers of refused) {
      const res = await exchange(headers);
      expect(res.status).toBeGreaterThanOrEqual(401);
      expect(await res.text()).not.toContain('"session"');
    }
  });
});
