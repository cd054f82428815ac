/**
 * The Node test loop: the npm package's Node `startEmulator()` (packaging/npm) spawning the compiled binary
 * with the demo fixture and waiting until it is ready, then its `reset()`, `snapshot()` and `restore()` through
 * the control plane, as a test suite calls them (bench/probes/node-start-emulator.mjs).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { buildNodeHelper } from "../../scripts/lib/node-helper";
import { BENCH_DIR, EXT_BINARY } from "../lib/paths";
import type { BenchSection, TargetCheck } from "../lib/results";
import { renderTestLoop, runProbe, summarizeMs, type TestLoopResult } from "./test-loop-bun";

export const testLoopNode: BenchSection<TestLoopResult> = {
  id: "testloop-node",
  label: "test loop: Node startEmulator() from the npm package (spawn → ready)",
  async run({ settings, log }) {
    const pkg = mkdtempSync(join(tmpdir(), "ext-bench-helper-"));
    let raw: Awaited<ReturnType<typeof runProbe>>;
    try {
      await buildNodeHelper(pkg);
      raw = await runProbe([
        "node",
        join(BENCH_DIR, "probes", "node-start-emulator.mjs"),
        EXT_BINARY,
        String(settings.testLoopStarts),
        String(settings.testLoopResets),
        pathToFileURL(join(pkg, "index.mjs")).href,
      ]);
    } finally {
      rmSync(pkg, { recursive: true, force: true });
    }
    const result: TestLoopResult = {
      firstStartMs: raw.startMs[0]!,
      starts: summarizeMs(raw.startMs.slice(1)),
      resets: summarizeMs(raw.resetMs),
      ...(raw.snapshotMs?.length ? { snapshots: summarizeMs(raw.snapshotMs) } : {}),
      ...(raw.restoreMs?.length ? { restores: summarizeMs(raw.restoreMs) } : {}),
    };
    log(
      `  start p50 ${result.starts.median} ms, reset p50 ${result.resets.median} ms, restore p50 ${result.restores?.median} ms`,
    );
    return result;
  },
  render(r) {
    return renderTestLoop(
      "## Test loop, Node: the npm package's `startEmulator()` (spawn `ext serve --memory --port 0 --ready-file …` → ready)",
      r,
      "One untimed start first (page cache). A reset is one POST /_emulator/reset from Node's fetch, no write before it; a snapshot one POST /_emulator/snapshots (demo fixture); each restore follows one createExtension().",
    );
  },
  targets(r) {
    const checks: TargetCheck[] = [
      {
        id: "node_start",
        target: "Node start (spawn → ready file) ≤ 30 ms p50",
        measured: r ? `${r.starts.median} ms p50, ${r.starts.p95} ms p95` : "not run",
        met: r ? r.starts.median <= 30 : null,
      },
      {
        id: "reset_node",
        target: "Node `reset()` ≤ 1 ms p50",
        measured: r ? `${r.resets.median} ms p50, ${r.resets.p95} ms p95` : "not run",
        met: r ? r.resets.median <= 1 : null,
      },
    ];
    return checks;
  },
};
