/**
 * The load generator: autocannon run under Node (its home runtime, so the client is the same whatever the
 * server is) in a separate process, through bench/autocannon-driver.mjs, which keeps sub-millisecond latencies. The server's CPU time is read around each run, which
 * gives a figure (server CPU per request) that does not depend on how fast the client can go.
 */
import { AUTOCANNON_DRIVER } from "./paths";
import { cpuMs } from "./proc";

export interface LoadOptions {
  url: string;
  connections: number;
  /** Seconds; ignored when `amount` is set. */
  durationS?: number;
  /** Stop after this many requests. */
  amount?: number;
  headers?: Record<string, string>;
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
  non2xx: number;
  errors: number;
  /** Server CPU (user + system) per request, in microseconds; null when not measured. */
  serverCpuUsPerReq: number | null;
}

interface DriverJson {
  duration: number;
  requests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  latencyMs: { p50: number | null; p99: number | null; avg: number | null };
}

export async function runLoad(opts: LoadOptions): Promise<LoadResult> {
  const options: Record<string, unknown> = { url: opts.url, connections: opts.connections, headers: opts.headers ?? {} };
  if (opts.amount !== undefined) options.amount = opts.amount;
  else options.duration = opts.durationS ?? 10;
  const args = ["node", AUTOCANNON_DRIVER, JSON.stringify(options)];

  const cpuBefore = opts.serverPid ? cpuMs(opts.serverPid) : 0;
  const proc = Bun.spawn(args, { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  const cpuAfter = opts.serverPid ? cpuMs(opts.serverPid) : 0;
  if (code !== 0) throw new Error(`autocannon exited ${code}: ${err.slice(0, 500)}`);
  const json = JSON.parse(out.trim().split("\n").pop()!) as DriverJson;
  const requests = json.requests;
  const ms = (v: number | null) => (v === null ? Number.NaN : Math.round(v * 1000) / 1000);
  return {
    connections: opts.connections,
    durationS: json.duration,
    requests,
    rps: requests / json.duration,
    latencyP50Ms: ms(json.latencyMs.p50),
    latencyP99Ms: ms(json.latencyMs.p99),
    latencyAvgMs: ms(json.latencyMs.avg),
    non2xx: json.non2xx,
    errors: json.errors + json.timeouts,
    serverCpuUsPerReq: opts.serverPid && requests > 0 ? ((cpuAfter - cpuBefore) * 1000) / requests : null,
  };
}
