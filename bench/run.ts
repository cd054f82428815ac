/**
 * `npm run bench`: every benchmark section (bench/sections/index.ts) in one run on one machine, written to
 * bench/results/latest.md and latest.json. `--quick` (short runs, for trying things) writes to bench/.work/
 * instead, so the committed results are always a full run; so does `--only=<id>,<id>` (a subset).
 * `--render` only rewrites latest.md and the verdicts from latest.json's figures (after a change to the report's
 * wording or targets; no new figures).
 * `--note="..."` records the conditions of the run (a busy machine, say) at the top of the results.
 * `--against REF [--rounds=N (5)] [--guard]` runs none of the sections: it compares this tree's binary with REF's
 * (any git ref, built beside this tree) instead, and prints the table (bench/lib/against.ts).
 * Needs wrk: installed with `apt-get install -y wrk` when missing and running as root, otherwise it says how.
 * Loopback only; every loop is bounded by a count and a time budget; every server is stopped on the way out.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { runAgainst } from "./lib/against";
import { ensureWrk } from "./lib/load";
import { RESULTS_DIR, WORK_DIR } from "./lib/paths";
import { buildReport } from "./lib/report";
import type { BenchResults } from "./lib/results";
import { fetchOpenApi, startEmulator, stopEmulator } from "./lib/servers";
import { settingsFor } from "./lib/settings";
import { describeEnvironment, ensureBenchTools, ensureBinary, ensureWorkDir } from "./lib/tools";
import { SECTIONS } from "./sections";

const args = process.argv.slice(2);
const ids = SECTIONS.map((s) => s.id);
if (args.includes("--render")) {
  const saved = JSON.parse(readFileSync(join(RESULTS_DIR, "latest.json"), "utf8")) as BenchResults;
  writeFileSync(join(RESULTS_DIR, "latest.md"), buildReport(saved, SECTIONS));
  // The verdicts are worked out again from the figures (a target added or changed): the JSON keeps them too.
  writeFileSync(join(RESULTS_DIR, "latest.json"), `${JSON.stringify(saved, null, 2)}\n`);
  console.log("rewrote bench/results/latest.md and the verdicts in latest.json from latest.json's figures");
  process.exit(0);
}
const started = performance.now();
const log = (line: string) =>
  console.log(`[bench ${((performance.now() - started) / 1000).toFixed(0).padStart(3)} s] ${line}`);

const againstAt = args.findIndex((a) => a === "--against" || a.startsWith("--against="));
if (againstAt >= 0) {
  const given = args[againstAt]!;
  const ref = given.includes("=") ? given.slice(given.indexOf("=") + 1) : args[againstAt + 1];
  if (!ref || ref.startsWith("--")) throw new Error("--against needs a git ref: npm run bench -- --against main");
  const rounds = Number(args.find((a) => a.startsWith("--rounds="))?.slice("--rounds=".length) ?? 5);
  if (!Number.isInteger(rounds) || rounds < 3) throw new Error("--rounds: a whole number of at least 3");
  ensureWorkDir();
  ensureWrk(log);
  ensureBinary(log);
  process.exit(await runAgainst({ ref, rounds, guard: args.includes("--guard"), log }));
}
const quick = args.includes("--quick");
const onlyArg = args.find((a) => a.startsWith("--only="));
const only = onlyArg ? onlyArg.slice("--only=".length).split(",") : ids;
for (const id of only) if (!ids.includes(id)) throw new Error(`unknown section "${id}"; choose from ${ids.join(", ")}`);
const note = args.find((a) => a.startsWith("--note="))?.slice("--note=".length);
const partial = quick || only.length < ids.length;

ensureWorkDir();
ensureWrk(log);
ensureBenchTools(log);
ensureBinary(log);
const settings = settingsFor(quick);
const results: BenchResults = { environment: describeEnvironment(note), settings, sections: {} };
log(
  `machine: ${results.environment.machine.cores} cores, load ${results.environment.machine.loadAvgAtStart.join(" ")}`,
);

// Prism serves the emulator's own OpenAPI document, fetched from a running emulator.
const docServer = await startEmulator();
const openapiFile = await fetchOpenApi(docServer);
await stopEmulator(docServer);

for (const section of SECTIONS) {
  if (!only.includes(section.id)) continue;
  log(section.label);
  try {
    results.sections[section.id] = await section.run({ settings, openapiFile, log });
  } catch (e) {
    // A section that fails is reported in the results (its targets read "not run"), not hidden; the others still run.
    results.sections[section.id] = { error: (e as Error).message };
    log(`  failed: ${(e as Error).message}`);
  }
}

results.totalSeconds = Math.round((performance.now() - started) / 1000);
results.loadAvgAtEnd = loadavg().map((n) => Math.round(n * 100) / 100);
const outDir = partial ? WORK_DIR : RESULTS_DIR;
const base = partial ? "results-partial" : "latest";
mkdirSync(outDir, { recursive: true });
const report = buildReport(results, SECTIONS);
writeFileSync(join(outDir, `${base}.json`), `${JSON.stringify(results, null, 2)}\n`);
writeFileSync(join(outDir, `${base}.md`), report);
log(`done in ${results.totalSeconds} s: ${join(outDir, base)}.md and .json`);
for (const t of results.targets ?? [])
  log(`  ${t.met === null ? "—" : t.met ? "met   " : "MISSED"} ${t.target}: ${t.measured}`);
