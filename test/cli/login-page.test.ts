/**
 * The page `ext dashboard` opens (tools/cli/lib/login-page.ts) and how it opens it (tools/cli/lib/open-browser.ts):
 * the page holds the code in a form body only, runs its one script by hash, posts only to the server, and is
 * the owner's alone; the browser is BROWSER's or the platform's opener, given the page's file URL.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { dashboardOriginOf, loginPageHtml, writeLoginPage } from "../../tools/cli/lib/login-page";
import { browserCommand, openInBrowser } from "../../tools/cli/lib/open-browser";

const CODE = "AbCdEfGhIjKlMnOpQrStUvWxYz012-_9";
const parent = mkdtempSync(join(tmpdir(), "ext-login-page-"));
afterAll(() => rmSync(parent, { recursive: true, force: true }));

describe("the login page", () => {
  test("posts the code in a form body to the server's /dashboard/login; its policy runs only its own script and posts only there", () => {
    const html = loginPageHtml("http://127.0.0.1:4780", CODE);
    expect(html).toContain('<form id="login" method="post" action="http://127.0.0.1:4780/dashboard/login">');
    expect(html).toContain(`<input type="hidden" name="code" value="${CODE}">`);
    // The code appears once: in the form's field, nowhere in a URL.
    expect(html.split(CODE).length).toBe(2);
    const script = /<script>([^<]*)<\/script>/.exec(html)![1]!;
    const hash = createHash("sha256").update(script).digest("base64");
    const policy = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)![1]!.replaceAll("&#39;", "'");
    expect(policy).toBe(
      `default-src 'none'; script-src 'sha256-${hash}'; base-uri 'none'; form-action http://127.0.0.1:4780`,
    );
    expect(html).toContain('<meta name="referrer" content="no-referrer">');
  });

  test("an IPv6 server has no form-action (not a CSP host-source); a server origin that is not http(s) or a code that is not one is refused", () => {
    expect(loginPageHtml("http://[::1]:4780", CODE)).not.toContain("form-action");
    expect(loginPageHtml("http://[::1]:4780", CODE)).toContain('action="http://[::1]:4780/dashboard/login"');
    expect(() => loginPageHtml("javascript:alert(1)", CODE)).toThrow("not a server origin");
    for (const code of ['"><script>alert(1)</script>', "a b", "", "x".repeat(257)])
      expect(() => loginPageHtml("http://127.0.0.1:4780", code)).toThrow("is not one");
  });

  test("is written 0600 in a fresh 0700 folder of its own, whatever the umask; removed with its folder", () => {
    const old = process.umask(0);
    let page: ReturnType<typeof writeLoginPage>;
    try {
      page = writeLoginPage("http://127.0.0.1:4780", CODE, parent);
    } finally {
      process.umask(old);
    }
    expect(dirname(page.path).startsWith(join(parent, "ext-dashboard-"))).toBe(true);
    expect(statSync(page.path).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(page.path)).mode & 0o777).toBe(0o700);
    expect(fileURLToPath(page.url)).toBe(page.path);
    expect(readFileSync(page.path, "utf8")).toBe(loginPageHtml("http://127.0.0.1:4780", CODE));
    page.remove();
    page.remove();
    expect(existsSync(dirname(page.path))).toBe(false);
  });
});

describe("the browser", () => {
  const url = "file:///tmp/ext-dashboard-x/login.html";

  test("BROWSER: its first entry, %s standing for the URL, else the URL last", () => {
    expect(browserCommand(url, "firefox")).toEqual(["firefox", url]);
    expect(browserCommand(url, "chromium --new-window")).toEqual(["chromium", "--new-window", url]);
    expect(browserCommand(url, "my-open %s --now")).toEqual(["my-open", url, "--now"]);
    expect(browserCommand(url, ":firefox:chromium")).toEqual(["firefox", url]);
  });

  test("without BROWSER (or an empty one), the platform's opener", () => {
    expect(browserCommand(url, undefined, "linux")).toEqual(["xdg-open", url]);
    expect(browserCommand(url, "", "freebsd")).toEqual(["xdg-open", url]);
    expect(browserCommand(url, undefined, "darwin")).toEqual(["open", url]);
    expect(browserCommand(url, undefined, "win32")).toEqual(["rundll32", "url.dll,FileProtocolHandler", url]);
  });

  test("a launcher that is missing or fails says so; one that ends well says nothing", async () => {
    expect(await openInBrowser(url, ["/nonexistent/opener", url]).outcome).toBe("/nonexistent/opener is not installed");
    expect(await openInBrowser(url, ["false"]).outcome).toBe("false ended with exit code 1");
    expect(await openInBrowser(url, ["true"]).outcome).toBeNull();
  });
});

describe("where the page posts: the dashboard origin the server named", () => {
  const label = "abcdefghijklmnopqrstuvwxyz";
  test("the label's name, on the port the server was reached at", () => {
    expect(dashboardOriginOf(`http://${label}.localhost:4780/dashboard/login`, "http://127.0.0.1:4780")).toBe(
      `http://${label}.localhost:4780`,
    );
    // A port mapping: the server's own port is not the one this machine reaches it at.
    expect(dashboardOriginOf(`http://${label}.localhost:4780/dashboard/login`, "http://[::1]:8080")).toBe(
      `http://${label}.localhost:8080`,
    );
    // No port in the target: its scheme's own (a TLS front on 443), never 80 for https.
    expect(dashboardOriginOf(`http://${label}.localhost:4780/dashboard/login`, "https://localhost")).toBe(
      `http://${label}.localhost:443`,
    );
    expect(dashboardOriginOf(`http://${label}.localhost:4780/dashboard/login`, "http://localhost")).toBe(
      `http://${label}.localhost:80`,
    );
  });

  test("anything but a dashboard login address is refused, as is a server off loopback", () => {
    for (const loginUrl of [
      "http://127.0.0.1:4780/dashboard/login",
      "http://evil.example:4780/dashboard/login",
      `https://${label}.localhost:4780/dashboard/login`,
      `http://${label}.localhost:4780/elsewhere`,
      `http://${label}.localhost:4780/dashboard/login?code=x`,
      `http://u:p@${label}.localhost:4780/dashboard/login`,
      `http://${label}x.localhost:4780/dashboard/login`,
      "not a url",
    ])
      expect(() => dashboardOriginOf(loginUrl, "http://127.0.0.1:4780")).toThrow("not a dashboard login address");
    expect(() =>
      dashboardOriginOf(`http://${label}.localhost:4780/dashboard/login`, "http://devbox.example:4780"),
    ).toThrow("reaches on this machine's loopback only");
  });
});
