/**
 * Row 2: GET /developer/v1/extensions with auth, rate limits off, 10 extensions in the account, at
 * concurrency 1 and 64; the same load against the bare Bun.serve ceiling (answering the very bytes our
 * list returns) and against Prism. Every server gets a short warm-up (JIT) before it is measured.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { runLoad, type LoadResult } from "../lib/load";
import { WORK_DIR } from "../lib/paths";
import { stopServer, type Server } from "../lib/proc";
import { AUTH_HEADERS, benchFixture, LIST_PATH, startCeiling, startEmulator, startPrism, stopEmulator } from "../lib/servers";
import type { Settings } from "../lib/settings";

export const CONCURRENCIES = [1, 64] as const;

export interface ThroughputRow extends LoadResult {
  target: "ext" | "ceiling" | "prism";
}

export interface ThroughputResult {
  rows: ThroughputRow[];
  /** ext req/s ÷ ceiling req/s, by concurrency. */
  ratioToCeiling: Record<string, number>;
  /**
   * Ceiling CPU per request ÷ ext CPU per request, by concurrency: the same ratio with the load generator
   * taken out (on a small machine the client, not the ceiling server, sets the ceiling's req/s).
   */
  cpuRatioToCeiling?: Record<string, number>;
  bodyBytes: number;
}

async function measureTarget(target: ThroughputRow["target"], server: Server, settings: Settings, log: (line: string) => void): Promise<ThroughputRow[]> {
  const url = server.url + LIST_PATH;
  await runLoad({ url, connections: 64, durationS: settings.warmupS, headers: AUTH_HEADERS });
  const rows: ThroughputRow[] = [];
  for (const connections of CONCURRENCIES) {
    const r = await runLoad({ url, connections, durationS: settings.loadDurationS, headers: AUTH_HEADERS, serverPid: server.pid });
    if (r.non2xx > 0 || r.errors > 0) throw new Error(`${target} at c=${connections}: ${r.non2xx} non-2xx responses and ${r.errors} errors; the figures would not be of a 200`);
    rows.push({ target, ...r });
    log(`  ${target} c=${connections}: ${Math.round(r.rps)} req/s, p50 ${r.latencyP50Ms} ms, p99 ${r.latencyP99Ms} ms`);
  }
  return rows;
}

export async function throughput(settings: Settings, openapiFile: string, log: (line: string) => void): Promise<ThroughputResult> {
  const rows: ThroughputRow[] = [];
  const emu = await startEmulator({ seed: benchFixture(settings.extensionsInAccount), rateLimits: false });
  let body: string;
  try {
    const res = await fetch(emu.url + LIST_PATH, { headers: AUTH_HEADERS });
    body = await res.text();
    const count = (JSON.parse(body) as { extensions?: unknown[] }).extensions?.length;
    if (res.status !== 200 || count !== settings.extensionsInAccount) throw new Error(`list answered ${res.status} with ${count} extensions, expected ${settings.extensionsInAccount}`);
    rows.push(...(await measureTarget("ext", emu, settings, log)));
  } finally {
    await stopEmulator(emu);
  }

  const bodyFile = join(WORK_DIR, "list-body.json");
  writeFileSync(bodyFile, body);
  const ceiling = await startCeiling(bodyFile);
  try {
    rows.push(...(await measureTarget("ceiling", ceiling, settings, log)));
  } finally {
    await stopServer(ceiling);
  }

  const prism = await startPrism(openapiFile);
  try {
    rows.push(...(await measureTarget("prism", prism, settings, log)));
  } finally {
    await stopServer(prism);
  }

  const ratioToCeiling: Record<string, number> = {};
  const cpuRatioToCeiling: Record<string, number> = {};
  for (const c of CONCURRENCIES) {
    const ours = rows.find((r) => r.target === "ext" && r.connections === c)!;
    const top = rows.find((r) => r.target === "ceiling" && r.connections === c)!;
    ratioToCeiling[`c${c}`] = ours.rps / top.rps;
    if (ours.serverCpuUsPerReq && top.serverCpuUsPerReq) cpuRatioToCeiling[`c${c}`] = top.serverCpuUsPerReq / ours.serverCpuUsPerReq;
  }
  return { rows, ratioToCeiling, cpuRatioToCeiling, bodyBytes: Buffer.byteLength(body) };
}
