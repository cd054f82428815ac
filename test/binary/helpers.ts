/**
 * The compiled `ext`, run the way a user runs it: built once per test run (and reused by later runs while the
 * sources are unchanged: ./binary-cache.ts), run from a directory with no node_modules, with an environment
 * holding nothing of ours but PATH and HOME.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cleanEnv } from "../helpers/clean-env";
import { readReadyFile } from "../helpers/ready-file";
import { waitFor } from "../helpers/wait-for";
import { sharedBinary } from "./binary-cache";

export interface Built {
  /** The shared binary: run it, copy it, never write beside it. */
  bin: string;
  /** This caller's own temp working directory, with no node_modules above it that matters. */
  work: string;
  /** Removes `work` (the binary stays for the other test files). */
  cleanup(): void;
}

/**
 * How long a test file's beforeAll may take to get the binary: about a second when another file built it, a
 * few seconds for the first build on a quiet machine, but a 120 MB write on a busy 2-core CI machine can pass
 * bun's 5 s default for hooks, and several such hooks also build other things (the npm package: 6 CPU-seconds).
 * A bound so that a build that never ends fails by name; CI has run 10× slower than a quiet machine.
 */
export const BUILD_TIMEOUT_MS = 120_000;

export function buildBinary(): Built {
  const bin = sharedBinary(BUILD_TIMEOUT_MS);
  const work = mkdtempSync(join(tmpdir(), "ext-bin-work-"));
  return { bin, work, cleanup: () => rmSync(work, { recursive: true, force: true }) };
}

// Shared with the server subprocess of the memory and crash tests; re-exported for this folder's tests.
export { cleanEnv };

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function run(
  bin: string,
  args: string[],
  opts: { cwd: string; env?: Record<string, string> },
): Promise<RunResult> {
  const proc = Bun.spawn([bin, ...args], {
    cwd: opts.cwd,
    env: cleanEnv(opts.env),
    stdout: "pipe",
    stderr: "pipe",
    stdin: "ignore",
  });
  const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  await proc.exited;
  return { code: proc.exitCode ?? 128, stdout, stderr };
}

export interface ServedBinary {
  url: string;
  baseUrl: string;
  adminUrl: string;
  /** This run's dashboard origin (http://<label>.localhost:port), from the ready file. */
  dashboardUrl: string;
  pid: number;
  /** The control plane's token, from the ready file. */
  adminToken: string;
  stop(): Promise<number>;
}

/** `ext serve --port 0 --ready-file …` (or another port), waiting for the ready file (never parsing logs). */
export async function serve(bin: string, args: string[], cwd: string, port = 0): Promise<ServedBinary> {
  const readyDir = mkdtempSync(join(tmpdir(), "ext-ready-"));
  const ready = join(readyDir, "ready.json");
  const proc = Bun.spawn(
    [bin, "serve", "--port", String(port), "--ready-file", ready, "--log-level", "warn", ...args],
    {
      cwd,
      env: cleanEnv(),
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  // Ready, or gone (a loaded machine has taken seconds to start it).
  const info = await readReadyFile<Omit<ServedBinary, "stop">>(ready, () => proc.exitCode !== null).catch(async () => {
    proc.kill("SIGKILL");
    rmSync(readyDir, { recursive: true, force: true });
    throw new Error(`ext serve did not become ready: ${await new Response(proc.stderr).text()}`);
  });
  return {
    ...info,
    async stop() {
      proc.kill("SIGTERM");
      const code = await proc.exited;
      rmSync(readyDir, { recursive: true, force: true });
      return code;
    },
  };
}

/** `fetch` of a served binary's control plane (`path` after /_emulator), sending its admin token. */
export function adminFetch(
  server: Pick<ServedBinary, "adminUrl" | "adminToken">,
  path: string,
  init: RequestInit = {},
): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set("authorization", `Bearer ${server.adminToken}`);
  return fetch(`${server.adminUrl}${path}`, { ...init, headers });
}

/**
 * True while a process with this pid exists and has not exited. An orphan that exited stays a zombie until
 * the machine's init reaps it (over a second in some containers); on Linux, /proc says so, and it counts as
 * gone.
 */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // /proc/PID/stat: "pid (comm) state …"; comm may hold spaces or parentheses, so read after the last ")".
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    // Gone between the two checks, or no /proc at all (macOS), where the signal check is all there is.
    return !existsSync("/proc/self");
  }
}

/**
 * True once `pid` is gone, allowing a graceful stop its time (20 s by default: a loaded machine is slow, a stuck
 * process never ends); a survivor is killed so no test leaks it. A test that expects a survivor passes a shorter
 * `waitMs`.
 */
export async function goneSoon(pid: number, waitMs = 20_000): Promise<boolean> {
  await waitFor(() => !alive(pid), `process ${pid} to end`, waitMs).catch(() => undefined);
  if (!alive(pid)) return true;
  try {
    process.kill(pid, "SIGKILL"); // a survivor must not outlive the test
  } catch {
    return true; // gone between the check and the kill
  }
  return false;
}
