/**
 * Row 1: cold start, from spawn to the first 200 of /healthz. Each emulator run gets a fresh empty data
 * directory (so migrations run every time: the worst case); one untimed run first warms the page cache,
 * since the question is how fast the program starts, not how fast the disk reads a 100 MB file once.
 */
import { DEMO_FIXTURE } from "../lib/paths";
import { stopServer, type Server } from "../lib/proc";
import { startEmulator, startPrism, stopEmulator } from "../lib/servers";
import type { Settings } from "../lib/settings";
import { round, summarize, type Summary } from "../lib/stats";

export interface ColdStartRow {
  target: string;
  summary: Summary;
  /** Why fewer runs than asked, when so. */
  note?: string;
}

async function measure(runs: number, budgetMs: number, start: () => Promise<{ server: Server; stop: () => Promise<void> }>): Promise<{ times: number[]; cut: boolean }> {
  await (await start()).stop();
  const times: number[] = [];
  const t0 = performance.now();
  for (let i = 0; i < runs; i++) {
    if (performance.now() - t0 > budgetMs) return { times, cut: true };
    const { server, stop } = await start();
    times.push(server.startMs);
    await stop();
  }
  return { times, cut: false };
}

export async function coldStart(settings: Settings, openapiFile: string, log: (line: string) => void): Promise<ColdStartRow[]> {
  const rows: ColdStartRow[] = [];
  const emulatorBudget = 60_000;
  for (const [target, seed] of [
    ["ext (compiled), empty data dir", null],
    ["ext (compiled), demo fixture", DEMO_FIXTURE],
  ] as const) {
    const { times, cut } = await measure(settings.coldRuns, emulatorBudget, async () => {
      const emu = await startEmulator({ seed });
      return { server: emu, stop: () => stopEmulator(emu) };
    });
    rows.push({ target, summary: roundSummary(summarize(times)), note: cut ? `stopped after ${times.length} runs (time budget)` : undefined });
    log(`  ${target}: median ${rows.at(-1)!.summary.median} ms`);
  }
  const prism = await measure(settings.coldRuns, settings.prismColdBudgetMs, async () => {
    const server = await startPrism(openapiFile);
    return { server, stop: () => stopServer(server) };
  });
  rows.push({
    target: "Prism mock of our /openapi.json",
    summary: roundSummary(summarize(prism.times)),
    note: prism.cut ? `stopped after ${prism.times.length} runs (time budget ${settings.prismColdBudgetMs / 1000} s)` : undefined,
  });
  log(`  Prism: median ${rows.at(-1)!.summary.median} ms`);
  return rows;
}

function roundSummary(s: Summary): Summary {
  return { n: s.n, median: round(s.median), p95: round(s.p95), min: round(s.min), max: round(s.max) };
}
