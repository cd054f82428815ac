/**
 * The in-process test loop, as a Bun test suite lives it: import `startEmulator` (tools/helper/start-emulator.ts), start
 * an emulator with the demo fixture, reset it between tests, stop it. Run in its own process by
 * bench/sections/test-loop-bun.ts (`bun bench/probes/bun-test-loop.ts <starts> <resets>`), so the first
 * start really is a first; prints one JSON line of milliseconds.
 */
export {}; // a module, for top-level await

const [starts, resets] = process.argv.slice(2).map(Number) as [number, number];
const t0 = performance.now();
const { startEmulator } = await import("../../tools/helper/start-emulator");
const importMs = performance.now() - t0;
const startMs: number[] = [];
const resetMs: number[] = [];
for (let i = 0; i < starts; i++) {
  const t = performance.now();
  const emu = await startEmulator();
  startMs.push(performance.now() - t);
  if (i === 0) {
    // A test that wrote something before the reset: the reset has rows to delete and the fixture to re-apply.
    const headers = { authorization: `Bearer ${emu.apiKey}`, "content-type": "application/json" };
    for (let j = 0; j < resets; j++) {
      await (
        await fetch(`${emu.baseUrl}/extensions`, {
          method: "POST",
          headers,
          body: JSON.stringify({ name: `Test ${j}` }),
        })
      ).arrayBuffer();
      const r = performance.now();
      await emu.reset();
      resetMs.push(performance.now() - r);
    }
  }
  await emu.stop();
}
console.log(JSON.stringify({ importMs, startMs, resetMs }));
