/**
 * The Bun test loop: `startEmulator()` from tools/helper/start-emulator.ts in process, with the demo fixture — the
 * first start (with the module import), later starts, and `reset()` after a write (through the control
 * plane, as tests call it). Runs bench/probes/bun-test-loop.ts in a child process, so nothing of the bench
 * itself is warm.
 */
import { join } from "node:path";
import { table } from "../lib/markdown";
import { BENCH_DIR, BUN, ROOT } from "../lib/paths";
import type { BenchSection, TargetCheck } from "../lib/results";
import { round, type Summary, summarize } from "../lib/stats";

export interface TestLoopResult {
  importMs?: number;
  firstStartMs: number;
  /** Starts after the first (the module is loaded, the JIT has seen the code once). */
  starts: Summary;
  resets: Summary;
  /** The Node helper's snapshot() and restore() (absent from the Bun loop, whose are in the snapshots section). */
  snapshots?: Summary;
  restores?: Summary;
}

export function summarizeMs(values: number[]): Summary {
  const s = summarize(values);
  return { n: s.n, median: round(s.median, 2), p95: round(s.p95, 2), min: round(s.min, 2), max: round(s.max, 2) };
}

export async function runProbe(cmd: string[]): Promise<{
  importMs?: number;
  startMs: number[];
  resetMs: number[];
  snapshotMs?: number[];
  restoreMs?: number[];
}> {
  const proc = Bun.spawn(cmd, { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  const line = out.trim().split("\n").pop() ?? "";
  if (code !== 0 || !line.startsWith("{"))
    throw new Error(`${cmd.join(" ")} exited ${code}: ${(err || out).slice(0, 500)}`);
  return JSON.parse(line);
}

export function renderTestLoop(title: string, r: TestLoopResult, note: string): string[] {
  const row = (what: string, s: Summary) => [what, s.n, s.median, s.p95, s.min, s.max];
  return [
    title,
    "",
    table(
      ["what", "runs", "p50 ms", "p95 ms", "min ms", "max ms"],
      [
        row("start (after the first)", r.starts),
        row("reset()", r.resets),
        ...(r.snapshots ? [row("snapshot()", r.snapshots)] : []),
        ...(r.restores ? [row("restore(snapshot), after one write", r.restores)] : []),
      ],
    ),
    "",
    `First start: ${round(r.firstStartMs, 1)} ms` +
      (r.importMs !== undefined
        ? ` (after ${round(r.importMs, 1)} ms importing tools/helper/start-emulator.ts).`
        : ".") +
      " " +
      note,
    "",
  ];
}

export const testLoopBun: BenchSection<TestLoopResult> = {
  id: "testloop-bun",
  label: "test loop: in-process startEmulator() (Bun)",
  async run({ settings, log }) {
    const raw = await runProbe([
      BUN,
      join(BENCH_DIR, "probes", "bun-test-loop.ts"),
      String(settings.testLoopStarts),
      String(settings.testLoopResets),
    ]);
    const result: TestLoopResult = {
      importMs: raw.importMs,
      firstStartMs: raw.startMs[0]!,
      starts: summarizeMs(raw.startMs.slice(1)),
      resets: summarizeMs(raw.resetMs),
    };
    log(
      `  start p50 ${result.starts.median} ms (first ${round(result.firstStartMs, 1)} ms), reset p50 ${result.resets.median} ms`,
    );
    return result;
  },
  render(r) {
    return renderTestLoop(
      "## Test loop, Bun: in-process `startEmulator()` with the demo fixture",
      r,
      "Each reset follows one POST /extensions, so it has rows to delete and the fixture to re-apply.",
    );
  },
  targets(r) {
    const check: TargetCheck = {
      id: "reset_bun",
      target: "Bun `reset()` ≤ 1 ms p50 (demo fixture)",
      measured: r ? `${r.resets.median} ms p50, ${r.resets.p95} ms p95` : "not run",
      met: r ? r.resets.median <= 1 : null,
    };
    return [check];
  },
};
