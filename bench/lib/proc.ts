/**
 * Process plumbing for the benchmarks: free ports, spawning a server and waiting for its first 200,
 * and reading a process's memory and CPU time from /proc (Linux only; the bench says so when it cannot).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { WORK_DIR } from "./paths";

/** A port the kernel just handed out; free again when this returns (loopback only, so a race is unlikely). */
export function freePort(): number {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
}

/** A fresh empty directory under bench/.work/tmp, removed by `removeDir`. */
export function tempDir(prefix: string): string {
  return mkdtempSync(join(WORK_DIR, "tmp", `${prefix}-`));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

export interface Server {
  proc: Subprocess;
  url: string;
  pid: number;
  /** Milliseconds from just before spawn to the first 200 of `readyPath`. */
  startMs: number;
}

export interface SpawnOptions {
  cmd: string[];
  port: number;
  /** Polled until it answers 200. */
  readyPath?: string;
  /** Sent with each poll of `readyPath` (an API key, for the first authenticated answer). */
  readyHeaders?: Record<string, string>;
  /** Give up (and kill the process) after this many ms. */
  timeoutMs?: number;
  env?: Record<string, string | undefined>;
}

/**
 * Spawns a server and polls it every millisecond until it answers 200: the clock runs from just before the
 * spawn to the first 200, so it covers exec, runtime start, module loading, migrations, seeding and listen.
 */
export async function spawnServer(opts: SpawnOptions): Promise<Server> {
  const url = `http://127.0.0.1:${opts.port}`;
  const ready = url + (opts.readyPath ?? "/healthz");
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const t0 = performance.now();
  const proc = Bun.spawn(opts.cmd, { stdout: "ignore", stderr: "pipe", stdin: "ignore", env: opts.env ?? process.env });
  for (;;) {
    try {
      const res = await fetch(ready, { headers: opts.readyHeaders });
      await res.arrayBuffer();
      if (res.status === 200) break;
    } catch {
      // Not listening yet: connection refused.
    }
    if (proc.exitCode !== null || proc.signalCode !== null) {
      const err = await new Response(proc.stderr as ReadableStream).text();
      throw new Error(
        `${opts.cmd.join(" ")} exited (${proc.exitCode ?? proc.signalCode}) before answering: ${err.slice(0, 500)}`,
      );
    }
    if (performance.now() - t0 > timeoutMs) {
      await stopServer({ proc, url, pid: proc.pid, startMs: 0 });
      throw new Error(`${opts.cmd.join(" ")} did not answer 200 on ${ready} within ${timeoutMs} ms`);
    }
    await Bun.sleep(1);
  }
  return { proc, url, pid: proc.pid, startMs: performance.now() - t0 };
}

/** SIGTERM, then SIGKILL after 5 s: a bench never leaves a server behind. */
export async function stopServer(server: Server): Promise<void> {
  if (server.proc.exitCode !== null || server.proc.signalCode !== null) return;
  server.proc.kill("SIGTERM");
  const killed = await Promise.race([server.proc.exited.then(() => false), Bun.sleep(5000).then(() => true)]);
  if (killed) {
    server.proc.kill("SIGKILL");
    await server.proc.exited;
  }
}

function statusField(pid: number, field: "VmRSS" | "VmHWM"): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status);
  if (!m) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(m[1]) * 1024;
}

/** Resident set size in bytes. */
export function rssBytes(pid: number): number {
  return statusField(pid, "VmRSS");
}

/** Peak resident set size in bytes since start, or since the last `resetPeakRss`. */
export function peakRssBytes(pid: number): number {
  return statusField(pid, "VmHWM");
}

/** Writing 5 to clear_refs resets VmHWM to the current RSS (Linux ≥ 4.0); false when not permitted. */
export function resetPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
    return true;
  } catch {
    return false;
  }
}

const CLOCK_TICKS_PER_SECOND = 100;

/** User + system CPU time of a process, in milliseconds (fields 14 and 15 of /proc/<pid>/stat). */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // The command name (field 2) may contain spaces; count fields from after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
}

/** Samples RSS every `everyMs` until stopped; returns the highest value seen. */
export function sampleRss(pid: number, everyMs = 10): { stop(): number } {
  let max = rssBytes(pid);
  const timer = setInterval(() => {
    try {
      max = Math.max(max, rssBytes(pid));
    } catch {
      // The process is gone; keep the last maximum.
    }
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      return max;
    },
  };
}

export const MB = 1024 * 1024;
