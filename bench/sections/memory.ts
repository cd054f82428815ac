/**
 * Row 4: resident memory of the compiled emulator, idle after start and after each batch of 10,000
 * authenticated GET requests (64 connections). The first batch includes warm-up (JIT code, the sockets'
 * buffers, the allocator's arenas). After it, RSS moves up and down by a few MB with garbage collection, so
 * growth is judged by the least-squares slope over the later batches, not by two readings: a leak shows as
 * a slope that stays positive, GC noise as points scattered around a flat line.
 */
import { runLoad } from "../lib/load";
import { MB, rssBytes } from "../lib/proc";
import { AUTH_HEADERS, benchFixture, LIST_PATH, startEmulator, stopEmulator } from "../lib/servers";
import type { Settings } from "../lib/settings";
import { round } from "../lib/stats";

export interface MemoryResult {
  idleRssMB: number;
  /** RSS after each batch, cumulative requests → MB. */
  afterBatches: { requests: number; rssMB: number }[];
  /** Least-squares slope of RSS over the batches after the first, in MB per 10,000 requests. */
  steadyGrowthMBPer10k: number;
  /** Growth from idle to the end of the first batch (includes warm-up). */
  firstBatchGrowthMB: number;
}

export async function memory(settings: Settings, log: (line: string) => void): Promise<MemoryResult> {
  const emu = await startEmulator({ seed: benchFixture(settings.extensionsInAccount), rateLimits: false });
  try {
    // Let start-up garbage settle before reading the idle figure.
    await Bun.sleep(1000);
    const idle = rssBytes(emu.pid);
    const afterBatches: MemoryResult["afterBatches"] = [];
    for (let i = 1; i <= settings.memoryBatches; i++) {
      const r = await runLoad({ url: emu.url + LIST_PATH, connections: 64, amount: settings.memoryBatch, headers: AUTH_HEADERS });
      if (r.non2xx > 0 || r.errors > 0) throw new Error(`memory batch ${i}: ${r.non2xx} non-2xx, ${r.errors} errors`);
      await Bun.sleep(200);
      afterBatches.push({ requests: i * settings.memoryBatch, rssMB: round(rssBytes(emu.pid) / MB) });
      log(`  after ${i * settings.memoryBatch} requests: ${afterBatches.at(-1)!.rssMB} MB`);
    }
    const first = afterBatches[0]!;
    return {
      idleRssMB: round(idle / MB),
      afterBatches,
      steadyGrowthMBPer10k: round(slope(afterBatches.slice(1).map((b) => [b.requests / 10_000, b.rssMB])), 2),
      firstBatchGrowthMB: round(first.rssMB - idle / MB),
    };
  } finally {
    await stopEmulator(emu);
  }
}

/** Least-squares slope of y over x; 0 with fewer than two points. */
export function slope(points: [number, number][]): number {
  if (points.length < 2) return 0;
  const mx = points.reduce((a, [x]) => a + x, 0) / points.length;
  const my = points.reduce((a, [, y]) => a + y, 0) / points.length;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}
