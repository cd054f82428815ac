/**
 * `npm run bench`: every benchmark row in one run on one machine, written to bench/results/latest.md and
 * latest.json. `--quick` (short runs, for trying things) writes to bench/.work/ instead, so the committed
 * results are always a full run. `--only=cold,get,upload,memory,dashboard` runs a subset (also to bench/.work/).
 * `--render` only rewrites latest.md from latest.json (after a change to the report's wording; no new figures).
 * Loopback only; every loop is bounded by a count and a time budget; every server is stopped on the way out.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { buildReport } from "./lib/report";
import type { BenchResults } from "./lib/results";
import { RESULTS_DIR, WORK_DIR } from "./lib/paths";
import { fetchOpenApi, startEmulator, stopEmulator } from "./lib/servers";
import { settingsFor } from "./lib/settings";
import { describeEnvironment, ensureBenchTools, ensureBinary, ensureWorkDir } from "./lib/tools";
import { coldStart } from "./sections/cold-start";
import { dashboard } from "./sections/dashboard";
import { memory } from "./sections/memory";
import { throughput } from "./sections/throughput";
import { upload } from "./sections/upload";

const SECTIONS = ["cold", "get", "upload", "memory", "dashboard"] as const;
type Section = (typeof SECTIONS)[number];

const args = process.argv.slice(2);
if (args.includes("--render")) {
  const saved = JSON.parse(readFileSync(join(RESULTS_DIR, "latest.json"), "utf8")) as BenchResults;
  writeFileSync(join(RESULTS_DIR, "latest.md"), buildReport(saved));
  console.log("rewrote bench/results/latest.md from latest.json");
  process.exit(0);
}
const quick = args.includes("--quick");
const onlyArg = args.find((a) => a.startsWith("--only="));
const only = onlyArg ? (onlyArg.slice("--only=".length).split(",") as Section[]) : [...SECTIONS];
for (const s of only) if (!SECTIONS.includes(s)) throw new Error(`unknown section "${s}"; choose from ${SECTIONS.join(", ")}`);
const partial = quick || only.length < SECTIONS.length;

const started = performance.now();
const log = (line: string) => console.log(`[bench ${((performance.now() - started) / 1000).toFixed(0).padStart(3)} s] ${line}`);

ensureWorkDir();
ensureBenchTools(log);
ensureBinary(log);
const settings = settingsFor(quick);
const results: BenchResults = { environment: describeEnvironment(), settings, sections: {} };
log(`machine: ${results.environment.machine.cores} cores, load ${results.environment.machine.loadAvgAtStart.join(" ")}`);

// Prism serves the emulator's own OpenAPI document, fetched from a running emulator.
const docServer = await startEmulator();
const openapiFile = await fetchOpenApi(docServer);
await stopEmulator(docServer);

if (only.includes("cold")) {
  log("cold start");
  results.sections.coldStart = await coldStart(settings, openapiFile, log);
}
if (only.includes("get")) {
  log("GET /developer/v1/extensions throughput");
  results.sections.throughput = await throughput(settings, openapiFile, log);
}
if (only.includes("upload")) {
  log("version uploads");
  try {
    results.sections.upload = await upload(settings, log);
  } catch (e) {
    // The upload rows depend on the versions endpoint; a failure is reported in the results, not hidden.
    results.sections.uploadError = (e as Error).message;
    log(`  upload rows failed: ${(e as Error).message}`);
  }
}
if (only.includes("memory")) {
  log("memory");
  results.sections.memory = await memory(settings, log);
}
if (only.includes("dashboard")) {
  log("dashboard first load");
  results.sections.dashboard = await dashboard(settings, log);
}

results.totalSeconds = Math.round((performance.now() - started) / 1000);
results.loadAvgAtEnd = loadavg().map((n) => Math.round(n * 100) / 100);
const outDir = partial ? WORK_DIR : RESULTS_DIR;
const base = partial ? "results-partial" : "latest";
mkdirSync(outDir, { recursive: true });
writeFileSync(join(outDir, `${base}.json`), JSON.stringify(results, null, 2) + "\n");
writeFileSync(join(outDir, `${base}.md`), buildReport(results));
log(`done in ${results.totalSeconds} s: ${join(outDir, base)}.md and .json`);
