/**
 * Row 4: resident memory of the compiled emulator, idle after start and after each batch of 10,000
 * authenticated GET requests (64 connections). The first batch includes warm-up (JIT code, the sockets'
 * buffers, the allocator's arenas); a leak shows as growth that goes on batch after batch.
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
  /** RSS growth per 10,000 requests after the first batch (steady state); ≤ ~1 MB is allocator noise. */
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
    const last = afterBatches.at(-1)!;
    const steadyRequests = last.requests - first.requests;
    return {
      idleRssMB: round(idle / MB),
      afterBatches,
      steadyGrowthMBPer10k: steadyRequests > 0 ? round(((last.rssMB - first.rssMB) * 10_000) / steadyRequests, 2) : 0,
      firstBatchGrowthMB: round(first.rssMB - idle / MB),
    };
  } finally {
    await stopEmulator(emu);
  }
}
