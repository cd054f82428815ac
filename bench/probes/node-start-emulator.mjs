// The Node test loop, measured through the npm package's own Node helper (packaging/npm): startEmulator()
// spawns the binary with `serve --memory --port 0 --ready-file …` and resolves once it is ready; reset() is
// one POST /_emulator/reset; snapshot() and restore() are the helper's own calls, as a suite makes them
// (`beforeEach(() => emu.restore(start))`), each restore after one write; stop() ends it.
// Usage: node bench/probes/node-start-emulator.mjs <ext binary> <starts> <resets> <built package's index.mjs>;
// prints one JSON line (ms). The package is built by scripts/lib/node-helper.ts (the helper is bundled).
if (import.meta.url === `file://${process.argv[1]}`) {
  const [binary, starts, resets] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
  const { startEmulator: startHelper } = await import(process.argv[5]);
  const startEmulator = (binary) => startHelper({ binary, fixture: "demo", logLevel: "warn" });
  const startMs = [];
  const resetMs = [];
  const snapshotMs = [];
  const restoreMs = [];
  // One untimed start: the binary's pages in the cache, as on any machine that ran a test before.
  await (await startEmulator(binary)).stop();
  for (let i = 0; i < starts; i++) {
    const t = performance.now();
    const emu = await startEmulator(binary);
    startMs.push(performance.now() - t);
    if (i === 0) {
      for (let j = 0; j < resets; j++) {
        const r = performance.now();
        await emu.reset();
        resetMs.push(performance.now() - r);
      }
      // An emulator keeps at most 32 snapshots: 30 timed ones, then restores of the first.
      const snapshots = [];
      for (let j = 0; j < Math.min(resets, 30); j++) {
        const s = performance.now();
        snapshots.push(await emu.snapshot());
        snapshotMs.push(performance.now() - s);
      }
      for (let j = 0; j < resets; j++) {
        await emu.createExtension({ name: `Restored ${j}` });
        const r = performance.now();
        await emu.restore(snapshots[0]);
        restoreMs.push(performance.now() - r);
      }
    }
    await emu.stop();
  }
  console.log(JSON.stringify({ startMs, resetMs, snapshotMs, restoreMs }));
}
