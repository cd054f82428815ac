/**
 * `ext deploy --build CMD`: the project's build, run through the shell in the current directory, stopped
 * past the build-time limit (spec §8: 5 minutes unless the limits endpoint says otherwise). It runs in its
 * own process group so that stopping it also stops what it started (npm → node → esbuild …).
 */
class BuildError extends Error {
  override name = "BuildError";
}

export async function runBuild(
  command: string,
  limitSeconds: number,
  opts: { cwd?: string; env?: Record<string, string> } = {},
): Promise<void> {
  const child = Bun.spawn(["sh", "-c", command], {
    cwd: opts.cwd,
    env: opts.env,
    stdio: ["ignore", "inherit", "inherit"],
    detached: true,
  });
  let timedOut = false;
  const killGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  };
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup("SIGTERM");
    // A build that ignores SIGTERM gets SIGKILL a few seconds later.
    setTimeout(() => killGroup("SIGKILL"), 3000).unref();
  }, limitSeconds * 1000);
  // Ctrl-C on ext stops the build too (it is in another process group, so the terminal's SIGINT misses it).
  const onSignal = () => killGroup("SIGTERM");
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  try {
    await child.exited;
  } finally {
    clearTimeout(timer);
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
  if (timedOut) {
    throw new BuildError(
      `the build ran past the build-time limit of ${limitSeconds} s (build_time_seconds) and was stopped: ${command}`,
    );
  }
  if (child.exitCode !== 0) {
    throw new BuildError(
      `the build failed (${child.exitCode !== null ? `exit code ${child.exitCode}` : `signal ${child.signalCode}`}): ${command}`,
    );
  }
}
