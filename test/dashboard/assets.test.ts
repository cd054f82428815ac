/** The dashboard's files as the server serves them from a checkout (built into memory on first request). */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { gzipSync } from "node:zlib";
import { startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";

const UI = resolve(import.meta.dir, "../../ui/src");
/** The budget for the first load (every file the page needs), gzipped. */
const FIRST_LOAD_BUDGET = 200 * 1024;

let emu: TestEmulator;
beforeAll(async () => (emu = await startTestEmulator()));
afterAll(() => stopTestEmulator(emu));

test("GET / is the page, with a strict Content-Security-Policy; its assets load; all of it under 200 KB gzipped", async () => {
  const page = await fetch(`${emu.dashboardUrl}/`);
  expect(page.status).toBe(200);
  expect(page.headers.get("content-type")).toStartWith("text/html");
  const csp = page.headers.get("content-security-policy")!;
  expect(csp).toContain("script-src 'self'");
  expect(csp).toContain("default-src 'none'");
  expect(csp).not.toContain("unsafe-inline");
  const html = await page.text();
  const assets = [...html.matchAll(/(?:src|href)="(\/ui\/[^"]+)"/g)].map((m) => m[1]!);
  expect(assets.some((a) => a.endsWith(".js"))).toBe(true);
  expect(assets.some((a) => a.endsWith(".css"))).toBe(true);
  let gzipped = gzipSync(html).length;
  for (const path of assets) {
    const res = await fetch(emu.dashboardUrl + path);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toContain("immutable");
    gzipped += gzipSync(Buffer.from(await res.arrayBuffer())).length;
  }
  expect(gzipped).toBeLessThan(FIRST_LOAD_BUDGET);
});

test("/favicon.ico is the dashboard's icon, so a JSON answer opened in a tab logs no 404 for it", async () => {
  const res = await fetch(`${emu.url}/favicon.ico`);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("image/svg+xml");
  expect(await res.text()).toStartWith("<svg ");
});

test("an unknown asset is the usual 404 envelope", async () => {
  const res = await fetch(`${emu.dashboardUrl}/ui/nope.js`);
  expect(res.status).toBe(404);
  expect(((await res.json()) as { error: { code: string } }).error.code).toBe("not_found");
});

test("no UI code writes markup from strings", () => {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else files.push(path);
    }
  };
  walk(UI);
  expect(files.length).toBeGreaterThan(5);
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    for (const banned of [
      "innerHTML",
      "outerHTML",
      "dangerouslySetInnerHTML",
      "insertAdjacentHTML",
      "document.write",
      "eval(",
    ]) {
      expect({ file, banned, found: text.includes(banned) }).toEqual({ file, banned, found: false });
    }
  }
});
