/**
 * snapshot() / restore() of the Bun helper (bench/probes/snapshots.ts, in a child process): the demo fixture,
 * and 25 extensions × 20 versions each on its own bundle file, to show how both grow with the state.
 */
import { join } from "node:path";
import { table } from "../lib/markdown";
import { BENCH_DIR, BUN } from "../lib/paths";
import type { BenchSection, TargetCheck } from "../lib/results";
import type { Summary } from "../lib/stats";
import { runProbe, summarizeMs } from "./test-loop-bun";

interface SnapshotResult {
  demo: { snapshot: Summary; restore: Summary };
  large: { snapshot: Summary; restore: Summary };
}

type Raw = Record<"demo" | "large", { snapshotMs: number[]; restoreMs: number[] }>;

export const snapshots: BenchSection<SnapshotResult> = {
  id: "snapshots",
  label: "snapshot() / restore() (Bun helper, in process)",
  async run({ log }) {
    const raw = (await runProbe([BUN, join(BENCH_DIR, "probes", "snapshots.ts"), "50"])) as unknown as Raw;
    const of = (k: keyof Raw) => ({
      snapshot: summarizeMs(raw[k].snapshotMs),
      restore: summarizeMs(raw[k].restoreMs),
    });
    const result = { demo: of("demo"), large: of("large") };
    log(`  demo restore p50 ${result.demo.restore.median} ms, 25×20 restore p50 ${result.large.restore.median} ms`);
    return result;
  },
  render(r) {
    const row = (what: string, s: Summary) => [what, s.n, s.median, s.p95, s.min, s.max];
    return [
      "## snapshot() and restore(), in process",
      "",
      table(
        ["what", "runs", "p50 ms", "p95 ms", "min ms", "max ms"],
        [
          row("snapshot, demo fixture", r.demo.snapshot),
          row("restore, demo fixture", r.demo.restore),
          row("snapshot, 25 extensions × 20 versions with bundles", r.large.snapshot),
          row("restore, 25 extensions × 20 versions with bundles", r.large.restore),
        ],
      ),
      "",
      "Each restore follows one write. Both grow with the rows (copied in memory) and the bundle files (one hard link each, per snapshot; a restore links back only the files that are gone).",
      "",
    ];
  },
  targets(r) {
    const check: TargetCheck = {
      id: "restore_bun",
      target: "Bun `restore()` ≤ 2 ms p50 (demo fixture)",
      measured: r ? `${r.demo.restore.median} ms p50, ${r.demo.restore.p95} ms p95` : "not run",
      met: r ? r.demo.restore.median <= 2 : null,
    };
    return [check];
  },
};
