/**
 * Install statistics at marketplace scale: the three reads that show them (`GET /extensions/:id/installs`,
 * `GET /extensions/:id`, `GET /extensions`) timed one request at a time at 0, 1 M and 100 M installs on one
 * extension of the compiled binary (a real data directory), with the server's RSS and the data directory's
 * size at each step, and the time of recording 100,000,000 installs in one call.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEMO_FIXTURE, WORK_DIR } from "../lib/paths";
import { MB, rssBytes } from "../lib/proc";
import type { BenchSection, TargetCheck } from "../lib/results";
import { ADMIN_HEADERS, AUTH_HEADERS, type Emulator, startEmulator, stopEmulator } from "../lib/servers";
import { round, summarize } from "../lib/stats";

export interface InstallsScaleStep {
  installs: number;
  /** Per route: median and p95 ms of sequential requests. */
  routes: Record<string, { medianMs: number; p95Ms: number }>;
  rssMB: number;
  dataDirMB: number;
}

export interface InstallsScaleResult {
  steps: InstallsScaleStep[];
  /** Milliseconds for one POST of count 100,000,000 (median of a few calls, each on a fresh extension). */
  record100MMs: number;
  /** Worst ratio of a route's median at any step to its median at 0 installs. */
  worstLatencyRatio: number;
  rssGrowthMB: number;
  dataDirGrowthMB: number;
}

const EXT = "ext_scale";
const ROUTES = {
  "GET /extensions/:id/installs": `/developer/v1/extensions/${EXT}/installs`,
  "GET /extensions/:id": `/developer/v1/extensions/${EXT}`,
  "GET /extensions": "/developer/v1/extensions",
};
const STEPS = [0, 1_000_000, 100_000_000];

/** The demo account plus an approved, public extension with two versions (fixture versions) and spares for the timing of a 100 M call. */
function scaleFixture(spares: number): string {
  const demo = JSON.parse(readFileSync(DEMO_FIXTURE, "utf8")) as { accounts: { extensions?: unknown[] }[] };
  const extension = (id: string) => ({
    id,
    name: `Scale ${id}`,
    visibility: "public",
    versions: [{ version: "1.0.0" }, { version: "1.1.0" }],
  });
  demo.accounts[0]!.extensions = [
    extension(EXT),
    extension("ext_scale_warmup"),
    ...Array.from({ length: spares }, (_, i) => extension(`ext_scale_spare_${i}`)),
  ];
  const file = join(WORK_DIR, "fixture-installs-scale.json");
  writeFileSync(file, JSON.stringify(demo));
  return file;
}

function dirBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? dirBytes(path) : statSync(path).size;
  }
  return total;
}

async function timeRequests(url: string, n: number): Promise<{ medianMs: number; p95Ms: number }> {
  const times: number[] = [];
  for (let i = 0; i < n + 20; i++) {
    const t0 = performance.now();
    const res = await fetch(url, { headers: AUTH_HEADERS });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
    if (i >= 20) times.push(performance.now() - t0);
  }
  const s = summarize(times);
  return { medianMs: round(s.median, 3), p95Ms: round(s.p95, 3) };
}

async function recordInstalls(emu: Emulator, extensionId: string, count: number): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(`${emu.url}/_emulator/extensions/${extensionId}/installs`, {
    method: "POST",
    headers: { ...ADMIN_HEADERS, "content-type": "application/json" },
    body: JSON.stringify({ count }),
  });
  const body = await res.text();
  if (res.status !== 200) throw new Error(`recording ${count} installs answered ${res.status} ${body}`);
  return performance.now() - t0;
}

async function measure(quick: boolean, log: (line: string) => void): Promise<InstallsScaleResult> {
  const requests = quick ? 100 : 500;
  const spares = quick ? 3 : 7;
  const emu = await startEmulator({ seed: scaleFixture(spares), rateLimits: false });
  try {
    // Warm-up (JIT, allocator arenas) on a separate extension, so the 0-installs step is not the cold one.
    await recordInstalls(emu, "ext_scale_warmup", 1);
    for (const path of Object.values(ROUTES)) await timeRequests(emu.url + path, requests);
    const steps: InstallsScaleStep[] = [];
    let recorded = 0;
    for (const target of STEPS) {
      if (target > recorded) await recordInstalls(emu, EXT, target - recorded);
      recorded = target;
      const routes: InstallsScaleStep["routes"] = {};
      for (const [name, path] of Object.entries(ROUTES)) routes[name] = await timeRequests(emu.url + path, requests);
      steps.push({
        installs: target,
        routes,
        rssMB: round(rssBytes(emu.pid) / MB),
        dataDirMB: round(dirBytes(emu.dataDir) / MB, 3),
      });
      log(
        `  ${target.toLocaleString("en")} installs: ${Object.entries(routes)
          .map(([r, v]) => `${r} ${v.medianMs} ms`)
          .join(", ")}`,
      );
    }
    const record = [];
    for (let i = 0; i < spares; i++) record.push(await recordInstalls(emu, `ext_scale_spare_${i}`, 100_000_000));
    const base = steps[0]!;
    const worstLatencyRatio = Math.max(
      ...steps.flatMap((s) => Object.keys(ROUTES).map((r) => s.routes[r]!.medianMs / base.routes[r]!.medianMs)),
    );
    return {
      steps,
      record100MMs: round(summarize(record).median, 2),
      worstLatencyRatio: round(worstLatencyRatio, 2),
      rssGrowthMB: round(Math.max(...steps.map((s) => s.rssMB)) - base.rssMB),
      dataDirGrowthMB: round(Math.max(...steps.map((s) => s.dataDirMB)) - base.dataDirMB, 3),
    };
  } finally {
    await stopEmulator(emu);
  }
}

/** The section of latest.md: one table; the verdicts go to the targets table. */
function render(r: InstallsScaleResult): string[] {
  const names = Object.keys(ROUTES);
  return [
    "## Install statistics at scale",
    "",
    "One extension of the compiled binary (real data directory), installs recorded through the control plane; each figure is the median (p95) of sequential requests.",
    "",
    `| installs | ${names.join(" | ")} | RSS | data dir |`,
    `|---|${names.map(() => "---|").join("")}---|---|`,
    ...r.steps.map(
      (s) =>
        `| ${s.installs.toLocaleString("en")} | ${names.map((n) => `${s.routes[n]!.medianMs} ms (${s.routes[n]!.p95Ms})`).join(" | ")} | ${s.rssMB} MB | ${s.dataDirMB} MB |`,
    ),
    "",
    `Recording 100,000,000 installs in one request: ${r.record100MMs} ms (median).`,
    "",
  ];
}

function targets(r: InstallsScaleResult | undefined): TargetCheck[] {
  const at = (measured: (r: InstallsScaleResult) => string) => (r ? measured(r) : "not run");
  return [
    {
      id: "installs_latency_flat",
      target: "reads of install statistics flat within 2× at 0, 1 M and 100 M installs",
      measured: at((r) => `worst ratio ${r.worstLatencyRatio}×`),
      met: r ? r.worstLatencyRatio <= 2 : null,
    },
    {
      id: "installs_rss",
      target: "RSS within 10 MB of the empty case at 100 M installs",
      measured: at((r) => `+${r.rssGrowthMB} MB`),
      met: r ? r.rssGrowthMB <= 10 : null,
    },
    {
      id: "installs_data_dir",
      target: "data directory within 1 MB of the empty case at 100 M installs",
      measured: at((r) => `+${r.dataDirGrowthMB} MB`),
      met: r ? r.dataDirGrowthMB <= 1 : null,
    },
    {
      id: "installs_record_100m",
      target: "recording 100,000,000 installs: one request, < 50 ms",
      measured: at((r) => `${r.record100MMs} ms`),
      met: r ? r.record100MMs < 50 : null,
    },
  ];
}

export const installsScale: BenchSection<InstallsScaleResult> = {
  id: "installs",
  label: "install statistics at scale",
  run: ({ settings, log }) => measure(settings.quick, log),
  render: (result) => render(result),
  targets: (result) => targets(result),
};
