/** The bench's arithmetic and verdicts: a wrong percentile or a target judged backwards would mislead. */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { explainGap, GAPS_FILE, parseGaps } from "../../bench/lib/gaps";
import { buildReport, checkTargets } from "../../bench/lib/report";
import type { BenchResults } from "../../bench/lib/results";
import { settingsFor } from "../../bench/lib/settings";
import { percentile, summarize } from "../../bench/lib/stats";
import { SECTIONS } from "../../bench/sections";
import { slope } from "../../bench/sections/memory";

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

function results(sections: Record<string, unknown>): BenchResults {
  return {
    environment: {
      date: "2026-11-22T06:10:00.000Z",
      machine: { cpuModel: "Test CPU", cores: 2, memoryGiB: 8, kernel: "6.1", loadAvgAtStart: [0.1, 0.1, 0.1] },
      versions: { bun: "1.4.5", node: "20.0.0", wrk: "4.1.0", prism: "5.14.2", ext: "0.1.0", commit: "abc1234" },
    },
    settings: settingsFor(false),
    sections,
  };
}

const load = (rps: number, cpu: number) => ({
  connections: 64,
  durationS: 6,
  requests: rps * 6,
  rps,
  latencyP50Ms: 1,
  latencyP99Ms: 2,
  latencyAvgMs: 1,
  non2xx: 0,
  errors: 0,
  serverCpuUsPerReq: cpu,
});
const row = (id: string, ext: number, ceiling: number) => ({
  id,
  label: `route ${id}`,
  status: 200,
  ext: load(ext, 40),
  ceiling: load(ceiling, 20),
  ratio: ext / ceiling,
  cpuRatio: 0.5,
});
const routes = (...rows: ReturnType<typeof row>[]) => ({
  connections: 64,
  durationS: 6,
  rows,
  listAtOne: { ext: load(8000, 80), ceiling: load(16000, 30) },
  prism: null,
  listBodyBytes: 2000,
});
const target = (r: BenchResults, id: string) => checkTargets(r, SECTIONS).find((t) => t.id === id);

describe("bench targets (bench/lib/report.ts)", () => {
  test("sections not run are neither met nor missed, and every target is listed", () => {
    const checks = checkTargets(results({}), SECTIONS);
    expect(checks.map((t) => t.met).every((m) => m === null)).toBe(true);
    expect(checks.map((t) => t.id).sort()).toEqual([
      "cold_api_vs_floor",
      "cold_start",
      "cold_vs_floor",
      "get_floor",
      "get_ratio",
      "hostile_healthz",
      "installs_data_dir",
      "installs_latency_flat",
      "installs_record_100m",
      "installs_rss",
      "large_fixture_load",
      "large_fixture_memory",
      "large_fixture_request",
      "node_start",
      "reset_bun",
      "reset_node",
      "restore_bun",
      "route_floor",
      "rss_growth",
      "upload_rss",
      "upload_speed",
      "write_ratio",
    ]);
  });

  test("a failed section reads 'not run' and its error is in the report", () => {
    const r = results({ routes: { error: "wrk exited 1" } });
    expect(target(r, "get_ratio")?.met).toBeNull();
    expect(buildReport(r, SECTIONS)).toContain("Not measured: wrk exited 1");
  });

  test("GET list at c=64: 60% of the ceiling is met, below is missed, and the report explains the miss", () => {
    const missed = results({ routes: routes(row("list", 5900, 10000), row("get", 5000, 10000)) });
    expect(target(missed, "get_ratio")).toMatchObject({ met: false });
    const report = buildReport(missed, SECTIONS);
    expect(report).toContain("## Where a target is missed");
    expect(report).toContain("| route list | 200 | 5900 | 10000 | **59%** |");
    const met = results({ routes: routes(row("list", 6000, 10000), row("get", 5000, 10000)) });
    expect(target(met, "get_ratio")?.met).toBe(true);
    // 60% is below the 70% floor a simplification must keep: that row alone is missed.
    expect(target(met, "get_floor")?.met).toBe(false);
    const atFloor = results({ routes: routes(row("list", 7000, 10000), row("get", 5000, 10000)) });
    expect(target(atFloor, "get_floor")?.met).toBe(true);
    expect(buildReport(atFloor, SECTIONS)).not.toContain("## Where a target is missed");
  });

  test("every route must reach 30% of its ceiling: the lowest one decides and is named", () => {
    const r = results({ routes: routes(row("list", 7000, 10000), row("create", 2900, 10000)) });
    expect(target(r, "route_floor")).toMatchObject({ met: false, measured: "lowest: route create at 29%" });
    expect(
      target(results({ routes: routes(row("list", 7000, 10000), row("create", 3000, 10000)) }), "route_floor")?.met,
    ).toBe(true);
  });

  test("writes are judged against the fair write ceiling (≥ 50%), not the bare one; the worst write decides", () => {
    const write = (id: string, ext: number, writeCeiling: number) => ({
      ...row(id, ext, 100_000),
      writeCeiling: load(writeCeiling, 60),
      writeRatio: ext / writeCeiling,
    });
    const r = (patch: number) =>
      results({ routes: routes(row("list", 7000, 10000), write("create", 500, 1000), write("patch", patch, 1000)) });
    expect(target(r(500), "write_ratio")).toMatchObject({ met: true, measured: "route 50%, route 50%" });
    expect(target(r(490), "write_ratio")?.met).toBe(false);
    // A write's bare-ceiling ratio (here 0.5%) no longer decides the read floor.
    expect(target(r(500), "route_floor")?.met).toBe(true);
  });

  test("cold start against the floor program: ≤ 3× its median, with an empty data dir and with the demo fixture", () => {
    const summary = (median: number) => ({ n: 20, median, p95: median, min: median, max: median });
    const cold = (empty: number, demo: number) => ({
      rows: [
        { target: "ext (compiled), empty data dir", summary: summary(empty) },
        { target: "ext (compiled), demo fixture", summary: summary(demo) },
        {
          target:
            "floor: the smallest compiled Bun.serve (bun build --compile --bytecode), alternating with each ext row",
          summary: summary(10),
        },
      ],
      trace: [],
    });
    expect(target(results({ cold: cold(30, 30) }), "cold_vs_floor")?.met).toBe(true);
    expect(target(results({ cold: cold(30, 31) }), "cold_vs_floor")?.met).toBe(false);
    expect(target(results({ cold: cold(31, 20) }), "cold_vs_floor")?.met).toBe(false);
  });

  test("cold start to the first authenticated API answer: ≤ 10× the floor's median", () => {
    const summary = (median: number) => ({ n: 20, median, p95: median, min: median, max: median });
    const cold = (api: number) => ({
      rows: [
        { target: "ext (compiled), empty data dir", summary: summary(30) },
        {
          target: "ext (compiled), demo fixture, to the first authenticated API answer (GET /developer/v1/extensions)",
          summary: summary(api),
        },
        {
          target:
            "floor: the smallest compiled Bun.serve (bun build --compile --bytecode), alternating with each ext row",
          summary: summary(10),
        },
      ],
      trace: [],
    });
    expect(target(results({ cold: cold(100) }), "cold_api_vs_floor")).toMatchObject({ met: true });
    expect(target(results({ cold: cold(101) }), "cold_api_vs_floor")).toMatchObject({ met: false });
    expect(target(results({ cold: { rows: [], trace: [] } }), "cold_api_vs_floor")?.met).toBeNull();
  });

  test("cold start is judged on the emulator with an empty data dir, not on the fixture or Prism", () => {
    const summary = (median: number) => ({ n: 20, median, p95: median, min: median, max: median });
    const cold = (empty: number) => ({
      rows: [
        { target: "ext (compiled), empty data dir", summary: summary(empty) },
        { target: "ext (compiled), demo fixture", summary: summary(55) },
        { target: "Prism mock of our /openapi.json", summary: summary(1500) },
      ],
      trace: [],
    });
    expect(target(results({ cold: cold(49) }), "cold_start")?.met).toBe(true);
    expect(target(results({ cold: cold(50) }), "cold_start")?.met).toBe(false);
  });

  test("test loop: reset ≤ 1 ms p50 and Node start ≤ 30 ms p50", () => {
    const s = (median: number) => ({ n: 20, median, p95: median, min: median, max: median });
    const loop = (start: number, reset: number) => ({ firstStartMs: 200, starts: s(start), resets: s(reset) });
    expect(target(results({ "testloop-bun": loop(5, 1) }), "reset_bun")?.met).toBe(true);
    expect(target(results({ "testloop-bun": loop(5, 1.01) }), "reset_bun")?.met).toBe(false);
    expect(target(results({ "testloop-node": loop(30, 0.5) }), "node_start")?.met).toBe(true);
    expect(target(results({ "testloop-node": loop(31, 0.5) }), "node_start")?.met).toBe(false);
  });

  test("RSS: growth once warm decides, within 1 MB per 10,000 requests", () => {
    const memory = (steady: number) => ({
      idleRssMB: 50,
      afterBatches: [],
      steadyGrowthMBPer10k: steady,
      firstBatchGrowthMB: 10,
    });
    expect(target(results({ memory: memory(0.8) }), "rss_growth")?.met).toBe(true);
    expect(target(results({ memory: memory(3) }), "rss_growth")?.met).toBe(false);
  });
});

describe("bench memory slope (bench/sections/memory.ts)", () => {
  test("a steady leak gives its rate; GC noise around a flat line gives about zero", () => {
    expect(
      slope([
        [1, 80],
        [2, 82],
        [3, 84],
        [4, 86],
      ]),
    ).toBeCloseTo(2);
    expect(
      Math.abs(
        slope([
          [2, 86],
          [3, 81],
          [4, 85],
          [5, 80],
          [6, 86],
          [7, 81],
        ]),
      ),
    ).toBeLessThan(1);
    expect(slope([[1, 80]])).toBe(0);
  });
});

describe("bench gap texts (bench/results/gaps.md, read by bench/lib/gaps.ts)", () => {
  test("`## key` sections, each paragraph joined to one line; the preface is not a section", () => {
    const parsed = parseGaps(
      "# Title\n\npreface\n\n## get_ratio\n\nFirst line\n  second line.\n\n## route create\n\nNote.\n",
    );
    expect([...parsed]).toEqual([
      ["get_ratio", "First line second line."],
      ["route create", "Note."],
    ]);
  });

  test("every target the report can explain finds its text, the run's figures first", () => {
    const sections = parseGaps(readFileSync(GAPS_FILE, "utf8"));
    const r = results({
      routes: { rows: [row("list", 5000, 10000), row("create", 2000, 10000)] },
      memory: { afterBatches: [{ rssMB: 50 }, { rssMB: 52 }] },
    });
    for (const id of [
      "cold_start",
      "get_ratio",
      "route_floor",
      "upload_speed",
      "upload_rss",
      "rss_growth",
      "reset_bun",
      "reset_node",
      "node_start",
      "cold_vs_floor",
      "cold_api_vs_floor",
      "write_ratio",
    ])
      expect(explainGap(id, r)).not.toBe("No explanation recorded for this target.");
    expect(explainGap("cold_vs_floor", r)).toContain(sections.get("cold_vs_floor")!);
    const patch = { ...row("patch", 3000, 10000), writeCeiling: { rps: 6000, serverCpuUsPerReq: 50 } };
    expect(explainGap("write_ratio", results({ routes: { rows: [patch] } }))).toBe(
      `route patch: ${patch.ext.serverCpuUsPerReq} µs of server CPU per request against the fair write ceiling's 50 µs. ${sections.get("write_ratio")}`,
    );
    expect(explainGap("get_ratio", r)).toBe(
      `route list: 40 µs of server CPU per request against the ceiling's 20 µs. ${sections.get("get_ratio")}`,
    );
    expect(explainGap("route_floor", r)).toContain(sections.get("route create")!);
    expect(explainGap("rss_growth", r)).toStartWith("RSS after each batch: 50 MB → 52 MB. ");
  });
});
