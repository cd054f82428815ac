/**
 * `ext dashboard`: a fresh one-time login link for the dashboard of the `ext serve` found from this folder
 * (verified first), the way to one when the banner went to a file or a pipe and printed none.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { cleanEnv } from "../helpers/clean-env";
import { sessionFromLogin } from "../helpers/emulator";
import { waitFor } from "../helpers/wait-for";

const ROOT = join(import.meta.dir, "../..");
const BUN = join(ROOT, "node_modules/.bin/bun");
const MAIN = join(ROOT, "tools/cli/main.ts");

let cwd: string;
let server: Subprocess;
let ready: { url: string; adminUrl: string; dashboardLoginUrl: string };
beforeAll(async () => {
  cwd = mkdtempSync(join(tmpdir(), "ext-dashboard-cmd-"));
  const readyFile = join(cwd, "ready.json");
  server = Bun.spawn([BUN, MAIN, "serve", "--port", "0", "--log-level", "warn", "--ready-file", readyFile], {
    cwd,
    env: cleanEnv(),
    stdout: "pipe",
    stderr: "pipe",
  });
  const text = await waitFor(() => {
    try {
      return readFileSync(readyFile, "utf8");
    } catch {
      return null;
    }
  }, "the ready file");
  ready = JSON.parse(text);
});
afterAll(async () => {
  server?.kill("SIGTERM");
  await server?.exited;
  rmSync(cwd, { recursive: true, force: true });
});

async function ext(args: string[], where = cwd, env: Record<string, string> = {}) {
  const proc = Bun.spawn([BUN, MAIN, ...args], { cwd: where, env: cleanEnv(env), stdout: "pipe", stderr: "pipe" });
  const [code, stdout, stderr] = await Promise.all([
    proc.exited,
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
  ]);
  return { code, stdout, stderr };
}

/** Logs in over HTTP with `link`: the session secret of the 303, which opens the control plane. */
async function logIn(link: string): Promise<number> {
  const res = await fetch(link, { redirect: "manual" });
  expect(res.status).toBe(303);
  expect(res.headers.get("location")).toMatch(/^\/#session=[A-Za-z0-9_-]{43}$/);
  const session = await sessionFromLogin(res);
  return (await fetch(`${ready.adminUrl}/state`, { headers: { "x-ext-session": session } })).status;
}

describe("ext dashboard", () => {
  test("prints a new login link of the server found from this folder that logs in; the earlier link stops working", async () => {
    const r = await ext(["dashboard"]);
    expect(r.code).toBe(0);
    const link = r.stdout.trim();
    expect(link).toMatch(new RegExp(`^${ready.url.replace(/\./g, "\\.")}/dashboard/login\\?token=[A-Za-z0-9_-]{32}$`));
    expect(r.stderr).toContain("it works once, within 15 minutes");
    expect(link).not.toBe(ready.dashboardLoginUrl);
    expect((await fetch(ready.dashboardLoginUrl, { redirect: "manual" })).status).toBe(401);
    expect(await logIn(link)).toBe(200);
    // Used: the refusal says how to get another.
    const again = await fetch(link, { redirect: "manual" });
    expect(again.status).toBe(401);
    expect(((await again.json()) as { error: { message: string } }).error.message).toContain("Run `ext dashboard`");
  });

  test("--json prints the API's answer, nothing else", async () => {
    const r = await ext(["dashboard", "--json"]);
    expect(r.code).toBe(0);
    const body = JSON.parse(r.stdout) as { url: string };
    expect(Object.keys(body)).toEqual(["url"]);
    expect(await logIn(body.url)).toBe(200);
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
