/**
 * A directory nothing can be written in, for the user running the tests. Root ignores file modes, so for
 * root the directory and its files are made immutable (chattr +i), or, where the file system has no such
 * flag, bind-mounted read-only. `undo()` restores it so the temp directory can be removed.
 */
import { chmodSync, readdirSync } from "node:fs";
import { join } from "node:path";

export function makeReadOnly(dir: string): { technique: string; undo(): void } {
  const entries = readdirSync(dir).map((name) => join(dir, name));
  if (process.getuid?.() !== 0) {
    for (const path of [...entries, dir]) chmodSync(path, 0o555);
    return {
      technique: "chmod",
      undo: () => {
        for (const p of [dir, ...entries]) chmodSync(p, 0o755);
      },
    };
  }
  const run = (cmd: string[]) => Bun.spawnSync(cmd, { stdout: "pipe", stderr: "pipe" });
  if (run(["chattr", "+i", ...entries, dir]).exitCode === 0) {
    return { technique: "chattr +i", undo: () => void run(["chattr", "-i", dir, ...entries]) };
  }
  run(["chattr", "-i", dir, ...entries]); // a partial success must not be left behind
  if (run(["mount", "--bind", dir, dir]).exitCode === 0) {
    if (run(["mount", "-o", "remount,bind,ro", dir]).exitCode === 0)
      return { technique: "read-only bind mount", undo: () => void run(["umount", dir]) };
    run(["umount", dir]);
  }
  throw new Error(
    "cannot make a read-only directory here: running as root, with neither chattr +i nor mount available",
  );
}
