/**
 * Where a start's time goes, for binaries side by side: each compiled binary started `rounds` times, alternated
 * (A B, B A, A B, …, so a change of the machine's load falls on all alike), with the demo fixture in a fresh data
 * directory and `--trace-startup`, timed from spawn to its first authenticated `GET /developer/v1/extensions`.
 * Prints, per phase of the trace, each binary's median CPU and wall milliseconds, then each one's median and
 * quickest start. How a start-up change is compared with its parent (bench/results/startup-profile.md):
 *   bun bench/probes/start-trace.ts <rounds> <binary> [<binary> …]
 */
import { mkdirSync } from "node:fs";
import { basename, join } from "node:path";
import { DEMO_FIXTURE, WORK_DIR } from "../lib/paths";
import { AUTH_HEADERS, LIST_PATH, startEmulator, stopEmulator } from "../lib/servers";
import { summarize } from "../lib/stats";

const [roundsArg, ...binaries] = process.argv.slice(2);
const rounds = Number(roundsArg);
if (!Number.isInteger(rounds) || rounds < 1 || binaries.length === 0)
  throw new Error("usage: bun bench/probes/start-trace.ts <rounds> <binary> [<binary> …]");
mkdirSync(join(WORK_DIR, "tmp"), { recursive: true });

/** `[startup]    41.6 ms  <phase> (+14.8 ms, cpu +14.8 ms)` (common/startup-trace.ts). */
const TRACE_LINE = /^\[startup\]\s+[\d.]+ ms\s+(.*) \(\+([\d.]+) ms, cpu \+([\d.]+) ms\)$/;

interface Side {
  starts: number[];
  phases: Map<string, { wall: number[]; cpu: number[] }>;
}
const sides = new Map<string, Side>(binaries.map((b) => [b, { starts: [], phases: new Map() }]));

async function startOnce(binary: string, side: Side | null): Promise<void> {
  const emu = await startEmulator({
    binary,
    seed: DEMO_FIXTURE,
    env: { EXT_TRACE_STARTUP: "1" },
    readyPath: LIST_PATH,
    readyHeaders: AUTH_HEADERS,
  });
  await stopEmulator(emu);
  if (!side) return;
  side.starts.push(emu.startMs);
  for (const line of (await new Response(emu.proc.stderr as ReadableStream).text()).split("\n")) {
    const m = TRACE_LINE.exec(line);
    if (!m) continue;
    // The first response names its path and status: one phase whatever they are.
    const phase = m[1]!.startsWith("first response") ? "first response" : m[1]!;
    const figures = side.phases.get(phase) ?? { wall: [], cpu: [] };
    figures.wall.push(Number(m[2]));
    figures.cpu.push(Number(m[3]));
    side.phases.set(phase, figures);
  }
}

// One untimed start of each first: the page cache holds every binary before any is timed.
for (const binary of binaries) await startOnce(binary, null);
for (let round = 0; round < rounds; round++)
  for (const binary of round % 2 === 0 ? binaries : [...binaries].reverse())
    await startOnce(binary, sides.get(binary)!);

const median = (values: number[]) => summarize(values).median.toFixed(1);
const names = binaries.map((b) => basename(b));
console.log(`| phase (median ms) | ${names.map((n) => `${n} CPU | ${n} wall`).join(" | ")} |`);
console.log(`| --- | ${names.map(() => "--- | ---").join(" | ")} |`);
for (const phase of sides.get(binaries[0]!)!.phases.keys()) {
  const cells = binaries.map((b) => {
    const f = sides.get(b)!.phases.get(phase);
    return f ? `${median(f.cpu)} | ${median(f.wall)}` : "— | —";
  });
  console.log(`| ${phase} | ${cells.join(" | ")} |`);
}
for (const binary of binaries) {
  const { median: mid, min } = summarize(sides.get(binary)!.starts);
  console.log(
    `${binary}: start → first authenticated list, median ${mid.toFixed(1)} ms, quickest ${min.toFixed(1)} ms (${rounds} starts)`,
  );
}
