/**
 * `ext dashboard`: logs a browser in to the dashboard of the `ext serve` found from this folder (verified first)
 * through a private page that posts a one-time code, never a URL that carries one; the browser here is a
 * stand-in (test/helpers/fake-browser.ts) named in BROWSER, which records what it was given.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Subprocess } from "bun";
import { sessionInRedirect } from "../../common/dashboard-links";
import { browserRecords } from "../helpers/browser-log";
import { cleanEnv } from "../helpers/clean-env";
import { postLoginCode } from "../helpers/emulator";
import { readAsItComes } from "../helpers/read-until";
import { readReadyFile } from "../helpers/ready-file";
import { extBinary, runCli } from "../helpers/run-cli";
import { waitFor } from "../helpers/wait-for";

const ROOT = join(import.meta.dir, "../..");
const BUN = join(ROOT, "node_modules/.bin/bun");
const FAKE_BROWSER = join(ROOT, "test/helpers/fake-browser.ts");

let cwd: string;
let server: Subprocess;
let ready: { url: string; adminUrl: string; dashboardUrl: string };
beforeAll(async () => {
  cwd = mkdtempSync(join(tmpdir(), "ext-dashboard-cmd-"));
  const readyFile = join(cwd, "ready.json");
  server = Bun.spawn([extBinary(), "serve", "--port", "0", "--log-level", "warn", "--ready-file", readyFile], {
    cwd,
    env: cleanEnv(),
    stdout: "pipe",
    stderr: "pipe",
  });
  ready = await readReadyFile<typeof ready>(readyFile, () => server.exitCode !== null);
});
afterAll(async () => {
  server?.kill("SIGTERM");
  await server?.exited;
  rmSync(cwd, { recursive: true, force: true });
});

const ext = (args: string[], where = cwd, env: Record<string, string> = {}) => runCli(args, { cwd: where, env });

/** `ext` running, its output read as it comes. */
function spawnExt(args: string[], env: Record<string, string>) {
  const proc = Bun.spawn([extBinary(), ...args], { cwd, env: cleanEnv(env), stdout: "pipe", stderr: "pipe" });
  const stdout = readAsItComes(proc.stdout);
  const stderr = readAsItComes(proc.stderr);
  const exited = Promise.all([proc.exited, stdout.done, stderr.done]).then(([code]) => code);
  return { proc, exited, stdout: stdout.text, stderr: stderr.text };
}

/** The records the stand-in browser wrote (test/helpers/fake-browser.ts). */
interface BrowserRecord {
  argv: string[];
  path: string;
  html: string;
  code: string;
  fileMode: number;
  dirMode: number;
  extVars: string[];
  status: number | null;
  location: string | null;
}

/** A place for one run: its TMPDIR (where the page goes) and the stand-in browser's log. */
function runPlace() {
  const dir = mkdtempSync(join(tmpdir(), "ext-dashboard-run-"));
  const tmp = join(dir, "tmp");
  mkdirSync(tmp);
  const log = join(dir, "browser.log");
  const records = () => browserRecords<BrowserRecord>(log);
  const env = (extra: Record<string, string> = {}) => ({
    TMPDIR: tmp,
    BROWSER: `${BUN} ${FAKE_BROWSER}`,
    FAKE_BROWSER_LOG: log,
    ...extra,
  });
  return { dir, tmp, records, env, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The control plane's answer to a session secret from a login's redirect. */
async function stateWith(location: string | null): Promise<number> {
  const session = sessionInRedirect(location);
  expect(session).not.toBeNull();
  return (await fetch(`${ready.adminUrl}/state`, { headers: { "x-ext-session": session! } })).status;
}

/** The page a run names to open by hand (its stderr), and the code in it. */
async function pageToOpenByHand(run: { stderr: () => string }) {
  const path = await waitFor(() => /open file:\/\/(\S+) in a browser/.exec(run.stderr())?.[1], "the page's path");
  return { path, code: /name="code" value="([^"]+)"/.exec(readFileSync(path, "utf8"))![1]! };
}

/** A login code posted as the page posts it. */
const post = (code: string) => postLoginCode(ready.dashboardUrl, code);

describe("ext dashboard", () => {
  test("opens a private page in the browser that logs it in, a code in no URL and on no command line; waits for it, then removes the page", async () => {
    const place = runPlace();
    try {
      const r = await ext(["dashboard"], cwd, place.env({ EXT_API_KEY: "ext_not_for_the_browser" }));
      expect(r.stderr).toContain("opening the dashboard's login page in the browser");
      expect(r.stdout).toBe(`logged in: the dashboard is at ${ready.dashboardUrl}/ (a new address each start)\n`);
      expect(r.code).toBe(0);
      // The stand-in writes its line once the post is answered, which can be after `ext dashboard` has exited.
      const [seen, ...more] = await waitFor(
        () => place.records().length > 0 && place.records(),
        "the browser's record",
      );
      expect(more).toEqual([]);
      // The browser was given the page's file URL, nothing else; the page was the owner's alone.
      expect(seen!.argv).toEqual([pathToFileURL(seen!.path).href]);
      expect(seen!.path.startsWith(`${place.tmp}/ext-dashboard-`)).toBe(true);
      expect(seen!.fileMode).toBe(0o600);
      expect(seen!.dirMode).toBe(0o700);
      expect(seen!.extVars).toEqual([]);
      expect(seen!.code).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect(seen!.argv.join(" ")).not.toContain(seen!.code);
      // It posts to the server's login, the code in the form body.
      expect(seen!.html).toContain(`<form id="login" method="post" action="${ready.dashboardUrl}/dashboard/login">`);
      expect(seen!.status).toBe(303);
      expect(await stateWith(seen!.location)).toBe(200);
      // Gone once used, its folder too; and the code with it.
      expect(readdirSync(place.tmp)).toEqual([]);
      expect((await post(seen!.code)).status).toBe(401);
    } finally {
      place.remove();
    }
  });

  test("--no-browser opens nothing: it names the page to open by hand and waits for it", async () => {
    const place = runPlace();
    try {
      const run = spawnExt(["dashboard", "--no-browser"], place.env());
      const { path, code } = await pageToOpenByHand(run);
      expect(run.stderr()).not.toContain(code);
      expect(await stateWith((await post(code)).headers.get("location"))).toBe(200);
      expect(await run.exited).toBe(0);
      expect(run.stdout()).toBe(`logged in: the dashboard is at ${ready.dashboardUrl}/ (a new address each start)\n`);
      expect(place.records()).toEqual([]);
      expect(existsSync(path)).toBe(false);
    } finally {
      place.remove();
    }
  });

  test("a browser that cannot be started is said at once, with the page to open by hand; the wait goes on", async () => {
    const place = runPlace();
    try {
      const run = spawnExt(["dashboard"], place.env({ BROWSER: join(place.dir, "no-such-browser") }));
      await waitFor(() => run.stderr().includes("no-such-browser is not installed"), "the launch failure");
      const { path, code } = await pageToOpenByHand(run);
      expect((await post(code)).status).toBe(303);
      expect(await run.exited).toBe(0);
      expect(existsSync(path)).toBe(false);
    } finally {
      place.remove();
    }
  });

  test("a newer `ext dashboard` replaces the waiting one: it says so, removes its page and exits 1; Ctrl-C removes the page too (exit 130)", async () => {
    const place = runPlace();
    try {
      const first = spawnExt(["dashboard"], place.env({ FAKE_BROWSER_POST: "0" }));
      await waitFor(() => place.records().length === 1, "the first page opened");
      const second = spawnExt(["dashboard"], place.env({ FAKE_BROWSER_POST: "0" }));
      expect(await first.exited).toBe(1);
      expect(first.stderr()).toContain("a newer login (another `ext dashboard`) replaced this one");
      expect(existsSync(place.records()[0]!.path)).toBe(false);
      await waitFor(() => place.records().length === 2, "the second page opened");
      second.proc.kill("SIGINT");
      expect(await second.exited).toBe(130);
      expect(second.stderr()).toContain("stopped: the login page is removed");
      expect(readdirSync(place.tmp)).toEqual([]);
    } finally {
      place.remove();
    }
  });

  test("--json prints the API's answer ({id, code, loginUrl}), nothing else, and opens and writes nothing", async () => {
    const place = runPlace();
    try {
      const r = await ext(["dashboard", "--json"], cwd, place.env());
      expect(r.code).toBe(0);
      const body = JSON.parse(r.stdout) as { id: string; code: string; loginUrl: string };
      expect(Object.keys(body).sort()).toEqual(["code", "id", "loginUrl"]);
      expect(body.loginUrl).toBe(`${ready.dashboardUrl}/dashboard/login`);
      expect(place.records()).toEqual([]);
      expect(readdirSync(place.tmp)).toEqual([]);
      expect(await stateWith((await post(body.code)).headers.get("location"))).toBe(200);
    } finally {
      place.remove();
    }
  });

  test("with no server for the data directory, says how to start or name one (exit 2)", async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), "ext-dashboard-none-"));
    try {
      // EXT_DATA_DIR alone is looked at: no folder above (another user's /tmp/.ext-data) can answer.
      const r = await ext(["dashboard"], elsewhere, { EXT_DATA_DIR: join(elsewhere, ".ext-data") });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`no emulator found for the data directory ${join(elsewhere, ".ext-data")}`);
      expect(r.stdout).toBe("");
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});
