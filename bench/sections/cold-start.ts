/**
 * Cold start, from spawn to the first 200 of /healthz, and beside it to what a test waits for: the first
 * authenticated developer-API answer (GET /developer/v1/extensions with the demo fixture's key). Each
 * emulator run gets a fresh empty data directory (so migrations run every time: the worst case); one untimed
 * run first warms the page cache, since the question is how fast the program starts, not how fast the disk
 * reads a 100 MB file once. One more run with EXT_TRACE_STARTUP=1 records where the time goes, phase by
 * phase (the server's own trace), up to that first API answer.
 */

import { buildFloor, startFloor } from "../lib/floor";
import { table } from "../lib/markdown";
import { DEMO_FIXTURE } from "../lib/paths";
import { type Server, stopServer } from "../lib/proc";
import type { BenchSection, TargetCheck } from "../lib/results";
import { AUTH_HEADERS, LIST_PATH, startEmulator, startPrism, stopEmulator } from "../lib/servers";
import { round, type Summary, summarize } from "../lib/stats";

export interface ColdStartRow {
  target: string;
  summary: Summary;
  /** Why fewer runs than asked, when so. */
  note?: string;
}

export interface ColdStartResult {
  rows: ColdStartRow[];
  /** `--trace-startup` lines of one start with an empty data directory (phase, ms since process start). */
  trace: string[];
}

type Starter = () => Promise<{ server: Server; stop: () => Promise<void> }>;

/** Runs `start` (and `floor`, when given, alternately: A B A B …, so both see the same machine) `runs` times. */
async function measure(
  runs: number,
  budgetMs: number,
  start: Starter,
  floor?: Starter,
): Promise<{ times: number[]; floorTimes: number[]; cut: boolean }> {
  await (await start()).stop();
  if (floor) await (await floor()).stop();
  const times: number[] = [];
  const floorTimes: number[] = [];
  const t0 = performance.now();
  for (let i = 0; i < runs; i++) {
    if (performance.now() - t0 > budgetMs) return { times, floorTimes, cut: true };
    for (const [starter, into] of [[start, times], ...(floor ? [[floor, floorTimes]] : [])] as [Starter, number[]][]) {
      const { server, stop } = await starter();
      into.push(server.startMs);
      await stop();
    }
  }
  return { times, floorTimes, cut: false };
}

const FLOOR_TARGET =
  "floor: the smallest compiled Bun.serve (bun build --compile --bytecode), alternating with each ext row";

function roundSummary(s: Summary): Summary {
  return { n: s.n, median: round(s.median), p95: round(s.p95), min: round(s.min), max: round(s.max) };
}

/** The row's name for the first authenticated developer-API answer (what the cold_api_vs_floor target reads). */
const FIRST_API_TARGET = `ext (compiled), demo fixture, to the first authenticated API answer (GET ${LIST_PATH})`;

/** The start-up trace of one start (stderr lines the server prints with EXT_TRACE_STARTUP=1). */
async function traceOnce(): Promise<string[]> {
  const emu = await startEmulator({ seed: DEMO_FIXTURE, env: { EXT_TRACE_STARTUP: "1" } });
  await (await fetch(emu.url + LIST_PATH, { headers: AUTH_HEADERS })).arrayBuffer();
  await stopEmulator(emu);
  const stderr = await new Response(emu.proc.stderr as ReadableStream).text();
  return stderr.split("\n").filter((l) => l.startsWith("[startup]"));
}

export const coldStart: BenchSection<ColdStartResult> = {
  id: "cold",
  label: "cold start",
  async run({ settings, openapiFile, log }) {
    const rows: ColdStartRow[] = [];
    buildFloor();
    const floorTimes: number[] = [];
    for (const [target, seed, readyPath, readyHeaders] of [
      ["ext (compiled), empty data dir", null, undefined, undefined],
      ["ext (compiled), demo fixture", DEMO_FIXTURE, undefined, undefined],
      [FIRST_API_TARGET, DEMO_FIXTURE, LIST_PATH, AUTH_HEADERS],
    ] as const) {
      const measured = await measure(
        settings.coldRuns,
        60_000,
        async () => {
          const emu = await startEmulator({ seed, readyPath, readyHeaders });
          return { server: emu, stop: () => stopEmulator(emu) };
        },
        startFloor,
      );
      const { times, cut } = measured;
      floorTimes.push(...measured.floorTimes);
      rows.push({
        target,
        summary: roundSummary(summarize(times)),
        note: cut ? `stopped after ${times.length} runs (time budget)` : undefined,
      });
      log(`  ${target}: median ${rows.at(-1)!.summary.median} ms`);
    }
    rows.push({ target: FLOOR_TARGET, summary: roundSummary(summarize(floorTimes)) });
    log(`  floor: median ${rows.at(-1)!.summary.median} ms`);
    const trace = await traceOnce();
    for (const line of trace) log(`  ${line}`);
    if (settings.prismColdRuns > 0) {
      const prism = await measure(settings.prismColdRuns, settings.prismColdBudgetMs, async () => {
        const server = await startPrism(openapiFile);
        return { server, stop: () => stopServer(server) };
      });
      rows.push({
        target: "Prism mock of our /openapi.json",
        summary: roundSummary(summarize(prism.times)),
        note: prism.cut
          ? `stopped after ${prism.times.length} runs (time budget ${settings.prismColdBudgetMs / 1000} s)`
          : undefined,
      });
      log(`  Prism: median ${rows.at(-1)!.summary.median} ms`);
    }
    return { rows, trace };
  },
  render(result, r) {
    const out = [
      `## Cold start (spawn → first 200 of /healthz, and of an authenticated API call; ${r.settings.coldRuns} runs after one untimed run)`,
      "",
    ];
    out.push(
      table(
        ["server", "runs", "median ms", "p95 ms", "min ms", "max ms"],
        result.rows.map((c) => [
          c.target + (c.note ? ` (${c.note})` : ""),
          c.summary.n,
          c.summary.median,
          c.summary.p95,
          c.summary.min,
          c.summary.max,
        ]),
      ),
      "",
    );
    if (result.trace.length > 0) {
      out.push(
        "Where one start with an empty data directory spends its time (`ext serve --trace-startup`; ms since the process began, each phase's own duration in brackets):",
        "",
        "```",
        ...result.trace,
        "```",
        "",
      );
    }
    return out;
  },
  targets(result) {
    const cold = result?.rows.filter((row) => row.target.startsWith("ext ("));
    const empty = cold?.find((c) => c.target.includes("empty"));
    const check: TargetCheck = {
      id: "cold_start",
      target: "cold start < 50 ms median (spawn → first 200 on /healthz, empty data dir)",
      measured: cold
        ? cold.map((c) => `${c.summary.median} ms (${c.target.replace("ext (compiled), ", "")})`).join(", ")
        : "not run",
      met: empty ? empty.summary.median < 50 : null,
    };
    const floor = result?.rows.find((row) => row.target === FLOOR_TARGET);
    const demo = cold?.find((c) => c.target.endsWith("demo fixture"));
    const times = (c: ColdStartRow | undefined) => (c && floor ? c.summary.median / floor.summary.median : null);
    const vsFloor: TargetCheck = {
      id: "cold_vs_floor",
      target: "cold start ≤ 3× the floor program's (medians, measured alternately), empty data dir and demo fixture",
      measured:
        empty && demo && floor
          ? `empty ${times(empty)!.toFixed(1)}×, demo ${times(demo)!.toFixed(1)}× (floor ${floor.summary.median} ms)`
          : "not run",
      met: empty && demo && floor ? times(empty)! <= 3 && times(demo)! <= 3 : null,
    };
    const api = cold?.find((c) => c.target === FIRST_API_TARGET);
    const apiVsFloor: TargetCheck = {
      id: "cold_api_vs_floor",
      target:
        "cold start to the first authenticated developer-API answer (demo fixture) ≤ 10× the floor program's (medians)",
      measured:
        api && floor
          ? `${times(api)!.toFixed(1)}× (${api.summary.median} ms, floor ${floor.summary.median} ms)`
          : "not run",
      met: api && floor ? times(api)! <= 10 : null,
    };
    return [check, vsFloor, apiVsFloor];
  },
};
