/**
 * A second local user for the tests of what another user of the machine can do (root only): made with
 * `useradd`, removed after the tests. Where it cannot be made (not root, no useradd), the reason is returned
 * instead, so a test file can skip with it.
 */

export interface OtherUser {
  name: string;
  /** Runs `argv` as this user (through runuser), synchronously. */
  run(argv: string[], opts?: { cwd?: string }): { code: number; stdout: string; stderr: string };
  /** Starts `argv` as this user, with output piped. */
  spawn(argv: string[], opts?: { cwd?: string }): ReturnType<typeof Bun.spawn>;
  remove(): void;
}

let made = 0;

/** A throwaway user, or why none can be made here. */
export function otherUser(tools: string[] = []): OtherUser | string {
  if (process.getuid?.() !== 0) return "creating a second local user needs root";
  for (const tool of ["useradd", "userdel", "runuser", ...tools]) if (!Bun.which(tool)) return `${tool} is missing`;
  // One per call: two test files of one worker process must not collide.
  const name = `extother${process.pid}x${++made}`;
  const added = Bun.spawnSync(["useradd", "--no-create-home", "--shell", "/usr/sbin/nologin", name]);
  if (added.exitCode !== 0) return `useradd failed: ${added.stderr.toString().trim()}`;
  // HOME is a place the user may not write: nothing of theirs is kept between runs.
  const as = (argv: string[]) => ["runuser", "-u", name, "--", "env", "HOME=/nonexistent", ...argv];
  return {
    name,
    run(argv, opts = {}) {
      const proc = Bun.spawnSync(as(argv), { cwd: opts.cwd ?? "/" });
      return { code: proc.exitCode ?? 128, stdout: proc.stdout.toString(), stderr: proc.stderr.toString() };
    },
    spawn(argv, opts = {}) {
      return Bun.spawn(as(argv), { cwd: opts.cwd ?? "/", stdout: "pipe", stderr: "pipe" });
    },
    remove: () => void Bun.spawnSync(["userdel", name]),
  };
}
