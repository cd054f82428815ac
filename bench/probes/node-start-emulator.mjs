// The Node test loop's mechanism, written out: spawn the binary with
// `serve --memory --seed demo --port 0 --ready-file FILE`, wait for the ready file, reset through the control
// plane, stop with SIGTERM. `startEmulator` below is the only part that knows how; point it at the Node
// helper of the npm package to measure that instead.
// Usage: node bench/probes/node-start-emulator.mjs <ext binary> <starts> <resets>; prints one JSON line (ms).
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

export async function startEmulator(binary) {
  const dir = mkdtempSync(join(tmpdir(), "ext-node-probe-"));
  const readyFile = join(dir, "ready.json");
  const child = spawn(binary, ["serve", "--memory", "--seed", "demo", "--port", "0", "--ready-file", readyFile, "--log-level", "warn"], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  const exited = new Promise((resolve) => child.once("exit", resolve));
  for (;;) {
    if (existsSync(readyFile)) break;
    if (child.exitCode !== null) throw new Error(`ext serve exited ${child.exitCode}: ${stderr.slice(0, 400)}`);
    await sleep(1);
  }
  const ready = JSON.parse(readFileSync(readyFile, "utf8"));
  return {
    url: ready.url,
    async reset() {
      const res = await fetch(`${ready.adminUrl}/reset`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`reset answered ${res.status}`);
    },
    async stop() {
      child.kill("SIGTERM");
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [binary, starts, resets] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
  const startMs = [];
  const resetMs = [];
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
    }
    await emu.stop();
  }
  console.log(JSON.stringify({ startMs, resetMs }));
}
