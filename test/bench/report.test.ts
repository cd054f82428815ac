/** The bench's arithmetic and verdicts: a wrong percentile or a target judged backwards would mislead. */
import { describe, expect, test } from "bun:test";
import { buildReport, checkTargets } from "../../bench/lib/report";
import type { BenchResults } from "../../bench/lib/results";
import { settingsFor } from "../../bench/lib/settings";
import { slope } from "../../bench/sections/memory";
import { percentile, summarize } from "../../bench/lib/stats";

describe("bench stats (bench/lib/stats.ts)", () => {
  test("nearest-rank percentiles: no interpolation between runs", () => {
    const twenty = Array.from({ length: 20 }, (_, i) => i + 1);
    expect(percentile(twenty, 50)).toBe(10);
    expect(percentile(twenty, 95)).toBe(19);
    expect(percentile(twenty, 100)).toBe(20);
    expect(percentile([7], 99)).toBe(7);
  });

  test("summarize sorts its input and leaves it unchanged", () => {
    const values = [30, 10, 20];
    expect(summarize(values)).toEqual({ n: 3, median: 20, p95: 30, min: 10, max: 30 });
    expect(values).toEqual([30, 10, 20]);
  });
});

function results(over: Partial<BenchResults["sections"]>): BenchResults {
  return {
    environment: {
      date: "2026-11-22T06:10:00.000Z",
      machine: { cpuModel: "Test CPU", cores: 2, memoryGiB: 8, kernel: "6.1", loadAvgAtStart: [0.1, 0.1, 0.1] },
      versions: { bun: "1.4.5", node: "20.0.0", autocannon: "8.0.0", prism: "5.14.2", ext: "0.1.0", commit: "abc1234" },
    },
    settings: settingsFor(false),
    sections: over,
  };
}

const load = (target: "ext" | "ceiling" | "prism", connections: number, rps: number) => ({
  target,
  connections,
  durationS: 10,
  requests: rps * 10,
  rps,
  latencyP50Ms: 1,
  latencyP99Ms: 2,
  latencyAvgMs: 1,
  non2xx: 0,
  errors: 0,
  serverCpuUsPerReq: 50,
});

describe("bench targets (bench/lib/report.ts)", () => {
  test("sections not run are neither met nor missed", () => {
    expect(checkTargets(results({})).map((t) => t.met)).toEqual([null, null, null, null, null]);
  });

  test("GET ratio at c=64: 50% of the ceiling is met, below is missed, and the report explains the miss", () => {
    const rows = [load("ext", 1, 5000), load("ext", 64, 4000), load("ceiling", 1, 10000), load("ceiling", 64, 10000), load("prism", 1, 900), load("prism", 64, 1000)];
    const missed = results({ throughput: { rows, ratioToCeiling: { c1: 0.5, c64: 0.4 }, bodyBytes: 2000 } });
    expect(checkTargets(missed).find((t) => t.id === "get_ratio")).toMatchObject({ met: false, measured: "40% of its req/s" });
    const report = buildReport(missed);
    expect(report).toContain("## Where a target is missed");
    expect(report).toContain("| Prism | 64 | 1000 |");

    const met = results({ throughput: { rows, ratioToCeiling: { c1: 0.5, c64: 0.5 }, cpuRatioToCeiling: { c1: 0.4, c64: 0.25 }, bodyBytes: 2000 } });
    expect(checkTargets(met).find((t) => t.id === "get_ratio")).toMatchObject({ met: true, measured: "50% of its req/s (25% of its efficiency: server CPU per request)" });
    expect(buildReport(met)).not.toContain("## Where a target is missed");
  });

  test("cold start is judged on the emulator (empty data dir and demo fixture), not on Prism", () => {
    const summary = (median: number) => ({ n: 20, median, p95: median, min: median, max: median });
    const cold = [
      { target: "ext (compiled), empty data dir", summary: summary(40) },
      { target: "ext (compiled), demo fixture", summary: summary(45) },
      { target: "Prism mock of our /openapi.json", summary: summary(1500) },
    ];
    expect(checkTargets(results({ coldStart: cold })).find((t) => t.id === "cold_start")?.met).toBe(true);
    cold[1]!.summary = summary(55);
    expect(checkTargets(results({ coldStart: cold })).find((t) => t.id === "cold_start")?.met).toBe(false);
  });

  test("RSS: growth once warm decides, within 1 MB per 10,000 requests", () => {
    const memory = (steady: number) => ({ idleRssMB: 50, afterBatches: [], steadyGrowthMBPer10k: steady, firstBatchGrowthMB: 10 });
    expect(checkTargets(results({ memory: memory(0.8) })).find((t) => t.id === "rss_growth")?.met).toBe(true);
    expect(checkTargets(results({ memory: memory(3) })).find((t) => t.id === "rss_growth")?.met).toBe(false);
  });
});

describe("bench memory slope (bench/sections/memory.ts)", () => {
  test("a steady leak gives its rate; GC noise around a flat line gives about zero", () => {
    expect(slope([[1, 80], [2, 82], [3, 84], [4, 86]])).toBeCloseTo(2);
    expect(Math.abs(slope([[2, 86], [3, 81], [4, 85], [5, 80], [6, 86], [7, 81]]))).toBeLessThan(1);
    expect(slope([[1, 80]])).toBe(0);
  });
});
