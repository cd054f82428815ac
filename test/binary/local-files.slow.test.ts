/**
 * The files `ext serve` leaves in shared folders, from the compiled binary, with another local user in
 * mind: the `--ready-file` (written under a fresh random name, never through a planted symlink, mode 0600;
 * a stale one that cannot be removed stops the start with one line) and the `--memory` directory (a private
 * mkdtemp, never inside a folder someone else prepared).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { waitFor } from "../helpers/wait-for";
import { BUILD_TIMEOUT_MS, type Built, buildBinary, cleanEnv, run } from "./helpers";

let built: Built;
let bin: string;
let work: string;

beforeAll(() => {
  built = buildBinary();
  bin = built.bin;
  work = built.work;
}, BUILD_TIMEOUT_MS);
afterAll(() => built?.cleanup());

const isRoot = process.getuid?.() === 0;
const NOBODY = 65534;

/** Waits until `path` exists or the process exits; whether it exists. */
async function appears(path: string, proc: Bun.Subprocess): Promise<boolean> {
  await waitFor(() => existsSync(path) || proc.exitCode !== null, path);
  return existsSync(path);
}

describe("--ready-file in a shared folder", () => {
  test("a symlink planted at the old predictable temp name (PATH.PID.tmp) is not written through; the file is 0600", async () => {
    const d = mkdtempSync(join(work, "shared-"));
    const victim = join(d, "victim.txt");
    writeFileSync(victim, "precious\n");
    const ready = join(d, "ready.json");
    // exec keeps the shell's PID, so the link sits exactly where a PID-named temp file would be opened.
    const proc = Bun.spawn(
      ["sh", "-c", 'ln -s "$VICTIM" "$READY.$$.tmp" && exec "$BIN" serve --memory --port 0 --ready-file "$READY"'],
      { cwd: d, env: cleanEnv({ VICTIM: victim, READY: ready, BIN: bin }), stdout: "ignore", stderr: "pipe" },
    );
    try {
      expect(await appears(ready, proc)).toBe(true);
      expect(JSON.parse(readFileSync(ready, "utf8")).pid).toBe(proc.pid);
      expect(readFileSync(victim, "utf8")).toBe("precious\n");
      expect(lstatSync(ready).isFile()).toBe(true);
      expect(statSync(ready).mode & 0o777).toBe(0o600);
      // No temp file of ours is left beside it.
      expect(readdirSync(d).filter((f) => f.endsWith(".tmp") && !f.startsWith("ready.json."))).toEqual([]);
    } finally {
      proc.kill("SIGTERM");
      await proc.exited;
    }
  });

  test.skipIf(!isRoot)(
    "a stale ready file another user owns in a sticky folder: exit 1 with one line, no errno text (run as root: the server runs as nobody)",
    async () => {
      // A world-readable copy of the binary, and a sticky world-writable folder like /tmp.
      const shared = mkdtempSync(join(work, "sticky-"));
      chmodSync(shared, 0o1777);
      const binDir = mkdtempSync(join(work, "bin-"));
      chmodSync(binDir, 0o755);
      // Reachable by the other user through the temp folder itself (world-searchable): never change its mode.
      chmodSync(work, 0o755);
      const copy = join(binDir, "ext");
      copyFileSync(bin, copy);
      chmodSync(copy, 0o755);
      const ready = join(shared, "ready.json");
      writeFileSync(ready, JSON.stringify({ url: "http://attacker.example:4780", pid: 1 }));
      const r = await run(
        "setpriv",
        [
          `--reuid=${NOBODY}`,
          `--regid=${NOBODY}`,
          "--clear-groups",
          copy,
          "serve",
          "--memory",
          "--port",
          "0",
          "--ready-file",
          ready,
        ],
        { cwd: shared },
      );
      expect(r.code).toBe(1);
      const lines = r.stderr.trim().split("\n");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^error: --ready-file .*ready\.json: a file already there cannot be removed/);
      expect(r.stderr).not.toMatch(/\bE[A-Z]{3,}\b|\n\s+at /);
    },
  );
});

describe("--memory beside a folder another user prepared", () => {
  test("the server's directory is a fresh private one, never inside a prepared ext-memory-<uid> folder", async () => {
    const tmp = mkdtempSync(join(work, "tmpdir-"));
    const uid = process.getuid?.() ?? 0;
    // What another user could make first under the old shared name: open to all (and theirs, when we can chown).
    const prepared = join(tmp, `ext-memory-${uid}`);
    mkdirSync(prepared);
    chmodSync(prepared, 0o777);
    if (isRoot) chownSync(prepared, NOBODY, NOBODY);
    const ready = join(tmp, "ready.json");
    const proc = Bun.spawn([bin, "serve", "--memory", "--port", "0", "--ready-file", ready], {
      cwd: tmp,
      env: cleanEnv({ TMPDIR: tmp }),
      stdout: "ignore",
      stderr: "pipe",
    });
    try {
      expect(await appears(ready, proc)).toBe(true);
      expect(readdirSync(prepared)).toEqual([]);
      const own = readdirSync(tmp).filter((f) => f.startsWith(`ext-memory-${uid}-${proc.pid}-`));
      expect(own).toHaveLength(1);
      const st = lstatSync(join(tmp, own[0]!));
      expect(st.isDirectory()).toBe(true);
      expect(st.mode & 0o777).toBe(0o700);
      expect(st.uid).toBe(uid);
    } finally {
      proc.kill("SIGTERM");
      await proc.exited;
    }
    expect(readdirSync(tmp).filter((f) => f.startsWith(`ext-memory-${uid}-`))).toEqual([]);
  });
});
