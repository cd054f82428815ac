/**
 * The load generator: wrk (C, from Debian's packages: `apt-get install -y wrk`), one thread, driven by
 * bench/wrk/request.lua. A single wrk thread costs a fraction of what a Node client costs per request, so on
 * a 2-core machine the server under test, not the client, is what saturates. The server's CPU time is read
 * around each run, which gives a figure (server CPU per request) that does not depend on the client at all.
 */
import { join } from "node:path";
import { BENCH_DIR } from "./paths";
import { cpuMs } from "./proc";

export const WRK_SCRIPT = join(BENCH_DIR, "wrk", "request.lua");

export interface LoadOptions {
  url: string;
  connections: number;
  durationS: number;
  method?: string;
  body?: string;
  headers?: Record<string, string>;
  /** Vary each request: "{n}" in the body becomes a running number; `keys` are used in turn (bench/wrk/request.lua). */
  vary?: { keys?: string[] };
  /** Server process whose CPU time is measured over the run. */
  serverPid?: number;
}

export interface LoadResult {
  connections: number;
  durationS: number;
  requests: number;
  rps: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  latencyAvgMs: number;
  /** Responses with a status ≥ 400 (wrk's count). */
  non2xx: number;
  /** Connect, read, write errors and timeouts. */
  errors: number;
  /** Server CPU (user + system) per request, in microseconds; null when not measured. */
  serverCpuUsPerReq: number | null;
}

interface WrkJson {
  requests: number;
  durationUs: number;
  errors: { connect: number; read: number; write: number; status: number; timeout: number };
  latencyUs: { p50: number; p99: number; mean: number; max: number };
}

export async function runLoad(opts: LoadOptions): Promise<LoadResult> {
  const cmd = ["wrk", "-t1", `-c${opts.connections}`, `-d${opts.durationS}s`, "--timeout", "10s", "-s", WRK_SCRIPT];
  for (const [k, v] of Object.entries(opts.headers ?? {})) cmd.push("-H", `${k}: ${v}`);
  cmd.push(opts.url);
  const env: Record<string, string | undefined> = {
    ...process.env,
    WRK_METHOD: opts.method ?? "GET",
    WRK_BODY: opts.body ?? "",
  };
  if (opts.vary) {
    env.WRK_VARY = "1";
    env.WRK_KEYS = (opts.vary.keys ?? []).join(" ");
  }
  const cpuBefore = opts.serverPid ? cpuMs(opts.serverPid) : 0;
  const proc = Bun.spawn(cmd, { stdout: "pipe", stderr: "pipe", env });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  const cpuAfter = opts.serverPid ? cpuMs(opts.serverPid) : 0;
  const line = out.split("\n").find((l) => l.startsWith('{"requests"'));
  if (code !== 0 || !line) throw new Error(`wrk exited ${code}: ${(err || out).slice(0, 500)}`);
  const json = JSON.parse(line) as WrkJson;
  const seconds = json.durationUs / 1e6;
  const ms = (us: number) => Math.round(us) / 1000;
  const e = json.errors;
  return {
    connections: opts.connections,
    durationS: Math.round(seconds * 100) / 100,
    requests: json.requests,
    rps: json.requests / seconds,
    latencyP50Ms: ms(json.latencyUs.p50),
    latencyP99Ms: ms(json.latencyUs.p99),
    latencyAvgMs: ms(json.latencyUs.mean),
    non2xx: e.status,
    errors: e.connect + e.read + e.write + e.timeout,
    serverCpuUsPerReq: opts.serverPid && json.requests > 0 ? ((cpuAfter - cpuBefore) * 1000) / json.requests : null,
  };
}

/** wrk on the PATH, or installed from Debian's packages when we may (root); otherwise a clear error. */
export function ensureWrk(log: (line: string) => void): string {
  const found = Bun.which("wrk");
  if (found) return found;
  if (process.getuid?.() !== 0)
    throw new Error("wrk is not installed: run `sudo apt-get install -y wrk` (Debian/Ubuntu) and run the bench again");
  log("wrk is missing: installing it with `apt-get install -y wrk` (running as root)");
  for (const cmd of [
    ["apt-get", "update"],
    ["apt-get", "install", "-y", "wrk"],
  ]) {
    const p = Bun.spawnSync(cmd, {
      stdout: "ignore",
      stderr: "pipe",
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
    if (p.exitCode !== 0) throw new Error(`${cmd.join(" ")} failed: ${p.stderr.toString().slice(0, 400)}`);
  }
  const installed = Bun.which("wrk");
  if (!installed) throw new Error("apt-get install -y wrk succeeded but wrk is not on the PATH");
  return installed;
}

export function wrkVersion(): string {
  const p = Bun.spawnSync(["wrk", "-v"], { stdout: "pipe", stderr: "pipe" });
  const text = p.stdout.toString() + p.stderr.toString();
  return /wrk\s+(\S+)/.exec(text)?.[1] ?? "unknown";
}
