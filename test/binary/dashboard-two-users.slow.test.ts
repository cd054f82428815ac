/**
 * The dashboard's login against another local user, with the compiled binary. The attack: every local user
 * can read every process's command line (/proc/PID/cmdline, `ps`), so a login link handed to a browser — by
 * `ext dashboard`, by a terminal opening a printed link — is theirs too, and whoever opens it first has the
 * control plane. Here the other user watches every command line while the owner runs `ext dashboard`, whose
 * browser (a stand-in, test/helpers/fake-browser.ts, named in BROWSER) waits until the watcher has seen it:
 * no command line may hold the login code or the admin token, and the page the browser was given must be
 * unreadable to the watcher, even in a folder every user can write (TMPDIR a sticky 1777 folder, as /tmp is).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { sessionInRedirect } from "../../common/dashboard-links";
import { browserRecords } from "../helpers/browser-log";
import { readAsItComes } from "../helpers/read-until";
import { waitFor } from "../helpers/wait-for";
import { BUILD_TIMEOUT_MS, type Built, buildBinary, cleanEnv, type ServedBinary, serve } from "./helpers";
import { type OtherUser, otherUser } from "./other-user";

const ROOT = resolve(import.meta.dir, "../..");
const BUN = join(ROOT, "node_modules/bun/bin/bun.exe");
const WATCHER = join(ROOT, "test/binary/cmdline-watcher.ts");
const FAKE_BROWSER = join(ROOT, "test/helpers/fake-browser.ts");

/** Why the other user cannot take part here, or null: they must be able to run Bun and the watcher from this checkout. */
function whyNot(user: OtherUser | string): string | null {
  if (typeof user === "string") return user;
  if (!existsSync("/proc/self/cmdline")) return "no /proc here: the command lines are read there";
  const r = user.run([BUN, "--version"]);
  return r.code === 0 ? null : `the other user cannot run ${BUN} (${r.stderr.trim() || `exit ${r.code}`})`;
}

const OTHER = otherUser();
const SKIP = whyNot(OTHER);

type Seen = { pid: string; argv: string[] } | { pid: string; read: string; error: string | null };

describe.skipIf(SKIP !== null)(`another local user${SKIP ? ` (skipped: ${SKIP})` : ""}`, () => {
  const user = OTHER as OtherUser;
  let built: Built;
  let server: ServedBinary;
  /** A sticky world-writable folder, as /tmp is: the owner's TMPDIR, and where the watcher's stop file goes. */
  let shared: string;
  /** The owner's own folder: the stand-in browser's record. */
  let own: string;
  beforeAll(async () => {
    built = buildBinary();
    shared = mkdtempSync(join(tmpdir(), "ext-shared-"));
    chmodSync(shared, 0o1777);
    own = mkdtempSync(join(tmpdir(), "ext-owner-"));
    server = await serve(built.bin, ["--memory"], built.work);
  }, BUILD_TIMEOUT_MS);
  afterAll(async () => {
    await server?.stop();
    user.remove();
    rmSync(shared, { recursive: true, force: true });
    rmSync(own, { recursive: true, force: true });
    built?.cleanup();
  });

  test("watching every command line while `ext dashboard` opens the browser, they see no login code and no admin token, and cannot read the page", async () => {
    const stop = join(shared, "stop");
    const watcher = user.spawn([BUN, WATCHER, stop]);
    const watched = readAsItComes(watcher.stdout as ReadableStream<Uint8Array>);
    // Whole lines only: the last one may still be arriving.
    const seen = (): Seen[] => {
      const text = watched.text();
      return text
        .slice(0, text.lastIndexOf("\n") + 1)
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line));
    };
    const go = join(own, "go");
    const log = join(own, "browser.log");
    try {
      await waitFor(() => watched.text().includes("watching\n"), "the watcher's first pass");
      const cli = Bun.spawn([built.bin, "dashboard", "--target", server.url], {
        cwd: built.work,
        env: cleanEnv({
          EXT_ADMIN_TOKEN: server.adminToken,
          TMPDIR: shared,
          BROWSER: `${BUN} ${FAKE_BROWSER}`,
          FAKE_BROWSER_LOG: log,
          FAKE_BROWSER_GO: go,
        }),
        stdout: "pipe",
        stderr: "pipe",
      });
      // The browser, seen by the watcher with the page it was given; it waits for that before it logs in.
      const browser = await waitFor(
        () => seen().find((s) => "argv" in s && s.argv.includes(FAKE_BROWSER)) as { pid: string; argv: string[] },
        "the watcher to see the browser",
      );
      const page = browser.argv.at(-1)!;
      expect(page).toStartWith(`file://${shared}/ext-dashboard-`);
      const refused = await waitFor(
        () => seen().find((s) => "read" in s && s.read === page) as { error: string | null },
        "the watcher's try at the page",
      );
      expect(refused.error).toBe("EACCES");
      expect(
        user.run(["ls", join(shared, readdirSync(shared).find((n) => n.startsWith("ext-dashboard-"))!)]).code,
      ).not.toBe(0);
      writeFileSync(go, "");
      expect(await cli.exited).toBe(0);
      expect(await new Response(cli.stdout).text()).toBe(
        `logged in: the dashboard is at ${server.dashboardUrl}/ (a new address each start)\n`,
      );
      writeFileSync(stop, "");
      expect(await watcher.exited).toBe(0);
      await watched.done;
      // The login is used once the server answered the browser's post: the browser writes its record just after.
      const [record] = await waitFor(() => {
        const records = browserRecords<{ code: string; status: number; location: string | null }>(log);
        return records.length > 0 && records;
      }, "the browser's record");
      // The browser logged in with the code the page held: that code is what the watcher must not have seen.
      expect(record!.status).toBe(303);
      expect(sessionInRedirect(record!.location)).not.toBeNull();
      expect(record!.code).toMatch(/^[A-Za-z0-9_-]{32}$/);
      const everything = watched.text();
      expect(everything).toContain(`"${built.bin}","dashboard","--target","${server.url}"`);
      // The code and the token themselves: the watcher sees every process of the machine, other tests' included,
      // and a docs example may name the login path in its own command line.
      for (const secret of [record!.code, server.adminToken]) expect(everything).not.toContain(secret);
      // The page is gone, its folder too.
      expect(readdirSync(shared).filter((n) => n.startsWith("ext-dashboard-"))).toEqual([]);
    } finally {
      writeFileSync(stop, "");
      writeFileSync(go, "");
      watcher.kill();
      await watcher.exited;
    }
  });
});
