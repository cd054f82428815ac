/**
 * snapshot() and restore() of the Bun helper, in process: the demo fixture, then 25 extensions × 20 versions
 * each on its own bundle file (an export directory written here and loaded). Each restore follows one write,
 * so it has something to undo. Run by bench/sections/snapshots.ts; prints one JSON line of milliseconds.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { placeholderBundle } from "../../server/seed/placeholder-bundle";
import { startEmulator } from "../../tools/helper/start-emulator";

const runs = Number(process.argv[2] ?? 50);

async function measure(emu: Awaited<ReturnType<typeof startEmulator>>) {
  const headers = { authorization: `Bearer ${emu.apiKey}`, "content-type": "application/json" };
  const snapshotMs: number[] = [];
  const restoreMs: number[] = [];
  let snap = await emu.snapshot();
  for (let i = 0; i < runs; i++) {
    const s = performance.now();
    const next = await emu.snapshot();
    snapshotMs.push(performance.now() - s);
    emu.runtime.snapshots.remove(snap.id);
    snap = next;
    await (
      await fetch(`${emu.baseUrl}/extensions/ext_bench_0/secrets/WRITE`, {
        method: "PUT",
        headers,
        body: JSON.stringify({ value: `v${i}` }),
      })
    ).arrayBuffer();
    const r = performance.now();
    await emu.restore(snap);
    restoreMs.push(performance.now() - r);
  }
  return { snapshotMs, restoreMs };
}

const demo = await startEmulator({ rateLimits: false });
const demoRun = await measureDemo(demo);
await demo.stop();

async function measureDemo(emu: typeof demo) {
  const snapshotMs: number[] = [];
  const restoreMs: number[] = [];
  const snap = await emu.snapshot();
  for (let i = 0; i < runs; i++) {
    const s = performance.now();
    const extra = await emu.snapshot();
    snapshotMs.push(performance.now() - s);
    emu.runtime.snapshots.remove(extra.id);
    await emu.createExtension({ name: `Write ${i}` });
    const r = performance.now();
    await emu.restore(snap);
    restoreMs.push(performance.now() - r);
  }
  return { snapshotMs, restoreMs };
}

// 25 extensions × 20 versions, each version on its own bundle file.
const dir = mkdtempSync(join(tmpdir(), "ext-bench-snap-"));
mkdirSync(join(dir, "bundles"));
const at = "2026-01-01T00:00:00.000Z";
const extensions = Array.from({ length: 25 }, (_, x) => ({
  id: `ext_bench_${x}`,
  slug: `bench-${x}`,
  name: `Bench ${x}`,
  createdAt: at,
  versions: Array.from({ length: 20 }, (_, v) => {
    const label = `${x}.${v}.0`;
    const bundle = placeholderBundle(label);
    writeFileSync(join(dir, "bundles", `${bundle.sha256}.tar.gz`), bundle.bytes);
    return {
      id: `ver_bench_${x}_${v}`,
      version: label,
      status: "approved" as const,
      bundle: { sha256: bundle.sha256, sizeBytes: bundle.bytes.length },
      submittedAt: at,
      approvedAt: at,
    };
  }),
}));
const big = await startEmulator({ rateLimits: false });
big.runtime.seed(
  { formatVersion: 2, accounts: [{ id: "acc_demo", name: "Demo Developer", extensions }] },
  { dir, label: dir },
);
const bigRun = await measure(big);
await big.stop();
rmSync(dir, { recursive: true, force: true });
console.log(JSON.stringify({ demo: demoRun, large: bigRun }));
