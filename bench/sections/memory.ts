/**
 * Resident memory of the compiled emulator, idle after start and after each batch of authenticated GET
 * requests (wrk, 64 connections, a fixed time per batch; the requests each batch served are counted). The
 * first batch includes warm-up (JIT code, the sockets' buffers, the allocator's arenas). After it, RSS moves
 * up and down by a few MB with garbage collection, so growth is judged by the least-squares slope over the
 * later batches, not by two readings: a leak shows as a slope that stays positive, GC noise as points
 * scattered around a flat line.
 */
import { runLoad } from "../lib/load";
import { table } from "../lib/markdown";
import { MB, rssBytes } from "../lib/proc";
import type { BenchSection } from "../lib/results";
import { AUTH_HEADERS, benchFixture, LIST_PATH, startEmulator, stopEmulator } from "../lib/servers";
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

export const memory: BenchSection<MemoryResult> = {
  id: "memory",
  label: "memory",
  async run({ settings, log }) {
    const emu = await startEmulator({ seed: benchFixture(settings.extensionsInAccount), rateLimits: false });
    try {
      // Let start-up garbage settle before reading the idle figure.
      await Bun.sleep(1000);
      const idle = rssBytes(emu.pid);
      const afterBatches: MemoryResult["afterBatches"] = [];
      let total = 0;
      for (let i = 1; i <= settings.memoryBatches; i++) {
        const r = await runLoad({
          url: emu.url + LIST_PATH,
          connections: 64,
          durationS: settings.memoryBatchS,
          headers: AUTH_HEADERS,
        });
        if (r.non2xx > 0 || r.errors > 0) throw new Error(`memory batch ${i}: ${r.non2xx} non-2xx, ${r.errors} errors`);
        total += r.requests;
        await Bun.sleep(200);
        afterBatches.push({ requests: total, rssMB: round(rssBytes(emu.pid) / MB) });
        log(`  after ${total} requests: ${afterBatches.at(-1)!.rssMB} MB`);
      }
      return {
        idleRssMB: round(idle / MB),
        afterBatches,
        steadyGrowthMBPer10k: round(slope(afterBatches.slice(1).map((b) => [b.requests / 10_000, b.rssMB])), 2),
        firstBatchGrowthMB: round(afterBatches[0]!.rssMB - idle / MB),
      };
    } finally {
      await stopEmulator(emu);
    }
  },
  render(m, r) {
    return [
      `## Memory (RSS of the compiled emulator; ${r.settings.memoryBatches} batches of ${r.settings.memoryBatchS} s of GETs at 64 connections)`,
      "",
      table(
        ["after", "RSS MB"],
        [
          ["start, idle 1 s", m.idleRssMB],
          ...m.afterBatches.map((b) => [`${b.requests.toLocaleString("en")} requests`, b.rssMB]),
        ],
      ),
      "",
      `Slope over the batches after the first (least squares): ${m.steadyGrowthMBPer10k} MB per 10,000 requests. The first batch's growth (+${m.firstBatchGrowthMB} MB) is warm-up: JIT code, 64 sockets' buffers, the allocator's arenas; after it RSS moves by a few MB either way with garbage collection.`,
      "",
    ];
  },
  targets(m) {
    return [
      {
        id: "rss_growth",
        target: "no RSS growth under load (slope ≤ 1 MB per 10,000 requests once warm)",
        measured: m
          ? `${m.steadyGrowthMBPer10k >= 0 ? "+" : ""}${m.steadyGrowthMBPer10k} MB per 10,000 (first batch incl. warm-up: +${m.firstBatchGrowthMB} MB)`
          : "not run",
        met: m ? m.steadyGrowthMBPer10k <= 1 : null,
      },
    ];
  },
};
