/**
 * /docs and the dashboard refuse to be framed (a framing page's requests would count as same-origin for the
 * control plane's browser check), and the docs UI still works under its Content-Security-Policy: real
 * headless Chromium, policy enforced, against the compiled binary (the Scalar script served from it).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { BUILD_TIMEOUT_MS, type Built, buildBinary, type ServedBinary, serve } from "../binary/helpers";
import { browserAvailable, launchBrowser, REFERENCE_DRAW_MS, until } from "../helpers/browser";

const enabled = browserAvailable();

describe.skipIf(!enabled)("framing and the docs page's CSP (Chromium, compiled binary)", () => {
  let built: Built;
  let server: ServedBinary;
  let browser: Browser;
  // Another origin (another port): the page that tries to frame the emulator.
  let framer: ReturnType<typeof Bun.serve>;

  beforeAll(async () => {
    [built, browser] = await Promise.all([Promise.resolve(buildBinary()), launchBrowser()]);
    server = await serve(built.bin, ["--memory"], built.work);
    framer = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: (req) =>
        new Response(
          `<!doctype html><title>framer</title><iframe id="f" src="${server.url}${new URL(req.url).searchParams.get("path")}"></iframe>`,
          { headers: { "content-type": "text/html" } },
        ),
    });
  }, BUILD_TIMEOUT_MS);

  afterAll(async () => {
    framer?.stop(true);
    await browser?.close();
    await server?.stop();
    built?.cleanup();
  });

  test("/docs and / send frame-ancestors 'none' and X-Frame-Options DENY", async () => {
    for (const url of [`${server.url}/docs`, `${server.dashboardUrl}/`, `${server.url}/`]) {
      const res = await fetch(url);
      // The dashboard's page on its own origin; the page saying where it is on any other (a 404).
      expect([url, res.status]).toEqual([url, url === `${server.url}/` ? 404 : 200]);
      expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
      expect(res.headers.get("x-frame-options")).toBe("DENY");
    }
  });

  test("a page of another origin cannot frame /docs or the dashboard", async () => {
    const page = await browser.newPage();
    try {
      for (const path of ["/docs", "/"]) {
        await page.goto(`http://127.0.0.1:${framer.port}/?path=${encodeURIComponent(path)}`);
        await page.locator("#f").waitFor();
        // The frame exists but the browser refused to load the emulator's page into it.
        await until(`the frame of ${path} to settle`, async () => page.frames().length === 2, 15_000);
        const child = page.frames()[1]!;
        const loaded = await child
          .evaluate("document.title + ' ' + (document.body ? document.body.innerText.slice(0, 200) : '')")
          .catch(() => "");
        expect([path, String(loaded)]).not.toEqual([path, expect.stringContaining("ext")]);
        expect([path, child.url().startsWith(server.url)]).toEqual([path, false]);
      }
    } finally {
      await page.close();
    }
  }, 30_000);

  test(
    "the docs UI renders the API reference with its policy enforced, and nothing is refused by it",
    async () => {
      const page: Page = await browser.newPage();
      const violations: string[] = [];
      page.on("console", (m) => {
        if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
      });
      try {
        // Not waiting for the load event: the drawing's wait below is the bound.
        await page.goto(`${server.url}/docs`, { waitUntil: "commit" });
        // The reference is built in the browser from /openapi.json: its tag groups and operations appear.
        await page.locator(".scalar-app h1").waitFor({ timeout: REFERENCE_DRAW_MS });
        await until("the rendered reference", async () =>
          ((await page.locator("body").textContent({ timeout: 500 })) ?? "").includes("Extensions"),
        );
        expect(violations).toEqual([]);
      } finally {
        await page.close();
      }
    },
    REFERENCE_DRAW_MS + 30_000,
  );
});
