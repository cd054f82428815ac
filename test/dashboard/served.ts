/**
 * What the dashboard's browser tests against the compiled binary share (the stories of dashboard.slow.test.ts
 * and the page sweep of sweep.slow.test.ts): the fixture `ext serve` seeds, one logged-in page, and the ways a
 * test reads the page and acts beside it (`ext deploy`, the API, the control plane).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Browser, BrowserContext, Locator, Page } from "playwright-core";
import { adminFetch, type Built, type RunResult, run, type ServedBinary, serve } from "../binary/helpers";
import { logIn, until } from "../helpers/browser";

export const KEY = "ext_dashboard_test_key_0123456789abcdef";
/** The longest ids a fixture takes (64 characters, no break in them): they must wrap on a phone. */
export const LONG_EXTENSION_ID = `ext_${"long".repeat(15)}`;
export const LONG_VERSION_ID = `ver_${"long".repeat(15)}`;
export const REJECT_REASON =
  "The sound s3 clips at full volume: see https://example.com/review/guidelines/audio#clipping-levels";
export const FIXTURE = {
  accounts: [
    {
      id: "acc_dev",
      name: "Dev Studio",
      apiKeys: [{ name: "ci", key: KEY, scopes: ["*"] }],
      teamMembers: [{ email: "dev@example.com", role: "developer" }],
      extensions: [{ id: "ext_board", name: "Sound Board" }],
    },
    {
      id: "acc_other",
      name: "Other Account",
      apiKeys: [{ name: "ci", key: "ext_dashboard_other_key_0123456789abcd", scopes: ["*"] }],
      extensions: [
        {
          id: LONG_EXTENSION_ID,
          name: "Long Ids",
          versions: [
            { version: "1.0.0", status: "approved" },
            { version: "1.1.0", id: LONG_VERSION_ID, status: "rejected", rejectReason: REJECT_REASON },
          ],
        },
      ],
    },
  ],
};

/**
 * The README's screenshots (docs/screenshots/), taken only with `UPDATE_SCREENSHOTS=1`: a test run never changes
 * the checkout, and a picture nobody looks at checks nothing.
 */
const UPDATE_SCREENSHOTS = process.env.UPDATE_SCREENSHOTS === "1";
const SHOTS = resolve(import.meta.dir, "../../docs/screenshots");
export const shoot = (p: Page, name: string, fullPage = true) =>
  UPDATE_SCREENSHOTS ? p.screenshot({ path: join(SHOTS, `${name}.png`), fullPage }) : Promise.resolve();
export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

/** Per test: a page load, an `ext deploy` and a live update each take a moment on a loaded 2-core machine. */
export const STEP_TIMEOUT_MS = 60_000;
/** The validator's own wording, which no page may show. */
export const RAW_VALIDATOR = /Expected (string|number|integer)|greater or equal|Request failed validation/;

export const textIs = (l: Locator, expected: string | RegExp, timeoutMs?: number) =>
  until(
    `${l} to read ${expected}`,
    async () => {
      const text = ((await l.first().textContent({ timeout: 500 })) ?? "").trim();
      return typeof expected === "string" ? text === expected : expected.test(text);
    },
    timeoutMs,
  );
export const textHas = (l: Locator, part: string) =>
  until(`${l} to contain ${part}`, async () => ((await l.first().textContent({ timeout: 500 })) ?? "").includes(part));
export const countIs = (l: Locator, n: number) => until(`${l} to count ${n}`, async () => (await l.count()) === n);

/** Every request the page sends and every console error, from now on; `stop` detaches the listeners. */
export function watch(p: Page) {
  const requests: string[] = [];
  const consoleErrors: string[] = [];
  const failed: string[] = [];
  const onRequest = (r: { method(): string; url(): string }) =>
    requests.push(`${r.method()} ${new URL(r.url()).pathname}`);
  const onConsole = (m: { type(): string; text(): string }) => m.type() === "error" && consoleErrors.push(m.text());
  const onResponse = (r: { status(): number; url(): string }) =>
    r.status() >= 400 && failed.push(`${r.status()} ${r.url()}`);
  p.on("request", onRequest);
  p.on("console", onConsole);
  p.on("response", onResponse);
  const stop = () => {
    p.off("request", onRequest);
    p.off("console", onConsole);
    p.off("response", onResponse);
  };
  return { requests, consoleErrors, failed, stop };
}

/** `ext serve` of the fixture, a browser, and a page logged in to its dashboard; `dialogs` the page opened. */
export interface Session {
  built: Built;
  server: ServedBinary;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  dialogs: string[];
}

/** Serves the fixture with `built`'s binary and logs a page of `browser` in to it (the binary's one-time link). */
export async function startSession(built: Built, launching: Promise<Browser>): Promise<Session> {
  const browser = await launching;
  writeFileSync(join(built.work, "fixture.json"), JSON.stringify(FIXTURE));
  const server = await serve(built.bin, ["--memory", "--seed", "fixture.json", "--no-rate-limits"], built.work);
  // CSP is bypassed so that axe can be injected, and so that an escaping bug would show (the policy would hide it).
  const context = await browser.newContext({ viewport: DESKTOP, bypassCSP: true });
  const page = await context.newPage();
  // As `ext dashboard` does (its private page, posting a one-time code): the session for the whole file.
  await logIn(page, server);
  const dialogs: string[] = [];
  page.on("dialog", (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  return { built, server, browser, context, page, dialogs };
}

export async function stopSession(s: Partial<Session> | undefined): Promise<void> {
  await s?.browser?.close();
  await s?.server?.stop();
  s?.built?.cleanup();
}

/** A real page load (a hash-only goto would keep the old document and its focus). */
export async function openPage(server: ServedBinary, hash: string, p: Page): Promise<void> {
  await p.goto("about:blank");
  await p.goto(`${server.dashboardUrl}/${hash}`);
  await p.locator("h1").first().waitFor();
}

/** `ext deploy` of a compiled output directory with `sounds` small MP3 files, as a user runs it. */
export function deployVersion(
  s: Pick<Session, "built" | "server">,
  sounds: number,
  version: string,
): Promise<RunResult> {
  const dir = mkdtempSync(join(s.built.work, "ext-"));
  mkdirSync(join(dir, "sounds"));
  const list = Array.from({ length: sounds }, (_, i) => ({ name: `s${i}`, file: `sounds/s${i}.mp3` }));
  for (const sound of list)
    writeFileSync(join(dir, sound.file), Buffer.from(`ID3\x03\x00\x00\x00\x00\x00\x00sound ${sound.name}`));
  writeFileSync(join(dir, "manifest.json"), JSON.stringify({ version, sounds: list }));
  return run(
    s.built.bin,
    [
      "deploy",
      dir,
      "--extension",
      "ext_board",
      "--api-key",
      KEY,
      "--target",
      s.server.baseUrl,
      "--changelog",
      `Release ${version}`,
    ],
    { cwd: s.built.work },
  );
}

/** The developer API with the fixture's key (or `init.key`). */
export const apiFetch = (server: ServedBinary, path: string, init: RequestInit & { key?: string } = {}) =>
  fetch(`${server.baseUrl}${path}`, {
    ...init,
    headers: {
      authorization: `Bearer ${init.key ?? KEY}`,
      "content-type": "application/json",
      ...(init.headers ?? {}),
    },
  });

/** A control-plane POST of a JSON body, with the server's admin token. */
export const controlPost = (server: ServedBinary, path: string, body: unknown) =>
  adminFetch(server, path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
