/**
 * What `ext --version` prints: the package version, the commit it was built from and the Bun it runs on.
 * A compiled binary gets the commit baked in by scripts/build.ts (`--define`); from source it asks git.
 * `Bun.version` is the runtime inside the binary, i.e. the Bun it was built with.
 */
import { resolve } from "node:path";

declare const EXT_BUILD_COMMIT: string | undefined;

/**
 * The checkout's commit (short hash, "-dirty" with uncommitted changes to tracked files), or null without git.
 * Through Bun.spawnSync, not node:child_process: every command imports this module, and loading that one cost each
 * of them (`ext serve`'s start included) about 2 ms for a binary that never asks git.
 */
export function gitCommit(cwd: string): string | null {
  const git = (...args: string[]) => {
    try {
      const r = Bun.spawnSync(["git", ...args], { cwd, stdin: "ignore", stdout: "pipe", stderr: "ignore" });
      return r.exitCode === 0 ? r.stdout.toString().trim() : null;
    } catch {
      return null; // no git at all
    }
  };
  const hash = git("rev-parse", "--short=12", "HEAD");
  if (!hash) return null;
  const dirty = git("status", "--porcelain", "--untracked-files=no");
  return dirty ? `${hash}-dirty` : hash;
}

/** The commit this ext was built from (a binary's baked-in one; from source, the checkout's). */
export function buildCommit(): string {
  if (typeof EXT_BUILD_COMMIT === "string") return EXT_BUILD_COMMIT;
  return gitCommit(resolve(import.meta.dir, "../../..")) ?? "unknown";
}

export function versionLine(version: string): string {
  return `${version} (commit ${buildCommit()}, bun ${Bun.version})`;
}
