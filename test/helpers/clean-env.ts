import { lstatSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { processAlive } from "../../server/data-dir/lock";

const UID = typeof process.getuid === "function" ? process.getuid() : null;
/** `ext-test-spawn-<uid>-<pid>-…`: one parent per test process, named with its owner and its PID. */
const PARENT_PREFIX = `ext-test-spawn-${UID ?? "any"}-`;
/** A parent this young is left alone even when its PID looks gone (another PID namespace sharing the temp dir). */
const KEEP_YOUNG_MS = 10 * 60_000;

/** A parent a test process of this user made and left behind: a real directory of ours, its process gone, not new. */
function leftBehind(name: string): boolean {
  const pid = Number(name.slice(PARENT_PREFIX.length).split("-")[0]);
  if (!Number.isSafeInteger(pid) || pid <= 0 || processAlive(pid)) return false;
  try {
    const st = lstatSync(join(tmpdir(), name));
    return st.isDirectory() && (UID === null || st.uid === UID) && Date.now() - st.mtimeMs > KEEP_YOUNG_MS;
  } catch {
    return false;
  }
}

/**
 * The spawned processes' temp dirs live under one parent per test process. Test workers are stopped without an
 * exit event, so each new parent removes those that test processes now gone left behind.
 */
let tempParent: string | undefined;
function freshTempDir(): string {
  if (!tempParent) {
    for (const name of readdirSync(tmpdir())) {
      if (!name.startsWith(PARENT_PREFIX) || !leftBehind(name)) continue;
      try {
        rmSync(join(tmpdir(), name), { recursive: true, force: true });
      } catch {
        // Not ours to remove after all (a file inside that we cannot delete): left as it is.
      }
    }
    tempParent = mkdtempSync(join(tmpdir(), `${PARENT_PREFIX}${process.pid}-`));
  }
  return mkdtempSync(join(tempParent, "t-"));
}

/**
 * The environment for a process a test spawns: PATH (for sh, curl) and HOME only, so no EXT_* setting of the
 * developer's shell leaks in (EXT_MEMORY=1 would make a crash test meaningless, EXT_ADMIN_TOKEN close the
 * control plane). `shell` is the environment to take PATH and HOME from (the test process's by default).
 *
 * TMPDIR is a fresh empty directory per process: a `--memory` server removes the memory directories killed
 * servers left in its temp dir and says so on stderr, so a shared one would make what a test reads depend on
 * which other tests ran before. A test that needs a particular one passes TMPDIR in `extra`. (Windows reads
 * TEMP, not TMPDIR: the tests run on Linux and macOS.)
 */
export function cleanEnv(
  extra: Record<string, string> = {},
  shell: Record<string, string | undefined> = process.env,
): Record<string, string> {
  return {
    PATH: shell.PATH ?? "/usr/bin:/bin",
    HOME: shell.HOME ?? "/tmp",
    NO_COLOR: "1",
    TMPDIR: extra.TMPDIR ?? freshTempDir(),
    ...extra,
  };
}
