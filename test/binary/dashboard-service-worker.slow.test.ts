/**
 * The dashboard against another local user who holds its port while the owner's server is down (before its
 * first start, during a restart), with the compiled binary and a real Chromium whose profile outlives the run.
 * The attack: the owner's browser loads `http://127.0.0.1:PORT/` (a stale tab, a bookmark) while the other user
 * answers there, with a page that registers a service worker for that origin; the worker stays in the owner's
 * profile and sees every later request to that origin, bodies included. The owner then starts `ext serve` on
 * the port and logs in with `ext dashboard`: the worker must see neither the login code nor a session, and the
 * owner ends logged in on this run's own origin (http://<label>.localhost:PORT), which nobody could have served
 * before the start. A last request to the old origin shows the worker was alive all along.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { browserAvailable, launchWithProfile, until } from "../helpers/browser";
import { readAsItComes } from "../helpers/read-until";
import { waitFor } from "../helpers/wait-for";
import { BUILD_TIMEOUT_MS, type Built, buildBinary, cleanEnv, type ServedBinary, serve } from "./helpers";
import { type OtherUser, otherUser } from "./other-user";

const ROOT = resolve(import.meta.dir, "../..");
const BUN = join(ROOT, "node_modules/bun/bin/bun.exe");
const SQUATTER = join(ROOT, "test/binary/service-worker-squatter.ts");

function whyNot(user: OtherUser | string): string | null {
  if (typeof user === "string") return user;
  if (!browserAvailable()) return "no Chromium";
  const r = user.run([BUN, "--version"]);
  return r.code === 0 ? null : `the other user cannot run ${BUN} (${r.stderr.trim() || `exit ${r.code}`})`;
}

const OTHER = otherUser();
const SKIP = whyNot(OTHER);

/** One of the other user's programs, started, with the port it printed and what it printed since. */
async function start(user: OtherUser, args: string[]) {
  const proc = user.spawn([BUN, SQUATTER, ...args]);
  const out = readAsItComes(proc.stdout as ReadableStream<Uint8Array>);
  const port = Number(await waitFor(() => /^port (\d+)$/m.exec(out.text())?.[1], `the other user's ${args[0]}`));
  return { proc, port, out };
}

describe.skipIf(SKIP !== null)(`another local user's service worker${SKIP ? ` (skipped: ${SKIP})` : ""}`, () => {
  const user = OTHER as OtherUser;
  let built: Built;
  let profile: string;
  let server: ServedBinary | undefined;
  let reporter: Awaited<ReturnType<typeof start>> | undefined;
  beforeAll(() => {
    built = buildBinary();
    profile = mkdtempSync(join(tmpdir(), "ext-owner-profile-"));
  }, BUILD_TIMEOUT_MS);
  afterAll(async () => {
    await server?.stop();
    reporter?.proc.kill();
    await reporter?.proc.exited;
    user.remove();
    rmSync(profile, { recursive: true, force: true });
    built?.cleanup();
  });

  test("planted while they held the port, it sees no login code and no session; the owner is logged in on the run's own origin", async () => {
    reporter = await start(user, ["report"]);
    const reports = () =>
      reporter!.out
        .text()
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => (JSON.parse(line) as { report: string }).report);
    const reportUrl = `http://127.0.0.1:${reporter.port}/`;
    const squatter = await start(user, ["squat", reportUrl]);
    const port = squatter.port;
    const oldOrigin = `http://127.0.0.1:${port}`;

    // The owner's browser loads the old origin while the other user answers there: the worker is planted. Chromium
    // may shut down before it wrote the registration into the profile, so the browser is opened again until one
    // still runs the worker (it reports the request); one that lost it loads the page, which plants it again.
    for (let attempt = 0; ; attempt++) {
      if (attempt === 5) throw new Error("five browser starts in a row lost the planted worker");
      const mark = `?kept-${attempt}`;
      const before = reports().length;
      const browser = await launchWithProfile(profile);
      try {
        await (await browser.newPage()).goto(`${oldOrigin}/${mark}`);
        const since = () => reports().slice(before);
        await until("the worker to report the request, or the page to plant it", async () =>
          since().some((r) => r.includes(mark) || r.includes('"registered"')),
        );
        if (attempt > 0 && since().some((r) => r.includes(mark))) break;
      } finally {
        await browser.close();
      }
    }
    squatter.proc.kill();
    await squatter.proc.exited;

    // The owner starts the emulator on that port, and logs the same browser profile in with `ext dashboard`.
    server = await serve(built.bin, ["--memory"], built.work, port);
    expect(server.url).toBe(oldOrigin);
    const owner = await launchWithProfile(profile);
    try {
      const cli = Bun.spawn([built.bin, "dashboard", "--no-browser", "--target", server.url], {
        cwd: built.work,
        env: cleanEnv({ EXT_ADMIN_TOKEN: server.adminToken }),
        stdout: "pipe",
        stderr: "pipe",
      });
      const stderr = readAsItComes(cli.stderr);
      const fileUrl = await waitFor(() => /open (file:\/\/\S+) in a browser/.exec(stderr.text())?.[1], "the page");
      const code = /name="code" value="([^"]+)"/.exec(readFileSync(fileURLToPath(fileUrl), "utf8"))![1]!;
      const page = await owner.newPage();
      await page.goto(fileUrl);
      expect(await cli.exited).toBe(0);
      await until("the dashboard to keep its session", () =>
        page.evaluate<boolean>("localStorage.getItem('ext-dashboard-session') !== null"),
      );
      const session = (await page.evaluate<string>("localStorage.getItem('ext-dashboard-session')"))!;
      expect(new URL(page.url()).origin).toBe(server.dashboardUrl);
      await page.locator("h1").first().waitFor();

      // The worker is alive: a request to the old origin (a stale tab reloaded) goes through it.
      const probe = await owner.newPage();
      // Started first (through the browser's DevTools protocol), as it is in a browser that used it lately: a
      // navigation that finds it still starting may go to the network instead, on a loaded machine, and the
      // server's answer there (Clear-Site-Data) removes it.
      const devtools = await owner.newCDPSession(probe);
      let running = false;
      devtools.on("ServiceWorker.workerVersionUpdated", (e) => {
        running ||= e.versions.some((v) => v.scriptURL === `${oldOrigin}/sw.js` && v.runningStatus === "running");
      });
      await devtools.send("ServiceWorker.enable");
      await devtools.send("ServiceWorker.startWorker", { scopeURL: `${oldOrigin}/` });
      await until("the worker to be running", async () => running);
      await probe.goto(`${oldOrigin}/?probe`);
      await until("the worker to report the probe", async () => reports().some((r) => r.includes("?probe")));
      const seen = reports().join("\n");
      expect(seen).not.toContain(code);
      expect(seen).not.toContain(session);
      expect(seen).not.toContain(server.adminToken);
      expect(seen).not.toContain("/dashboard/login");
    } finally {
      await owner.close();
    }
  }, 120_000);
});
