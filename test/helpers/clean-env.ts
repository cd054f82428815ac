/**
 * The environment for a process a test spawns: PATH (for sh, curl) and HOME only, so no EXT_* setting of the
 * developer's shell leaks in (EXT_MEMORY=1 would make a crash test meaningless, EXT_ADMIN_TOKEN close the
 * control plane). `shell` is the environment to take PATH and HOME from (the test process's by default).
 */
export function cleanEnv(
  extra: Record<string, string> = {},
  shell: Record<string, string | undefined> = process.env,
): Record<string, string> {
  return { PATH: shell.PATH ?? "/usr/bin:/bin", HOME: shell.HOME ?? "/tmp", NO_COLOR: "1", ...extra };
}
