/** The results as JSON (everything measured) and as the Markdown tables of bench/results/latest.md. */
import { dashboardReport } from "../sections/dashboard";
import type { LargeUpload } from "../sections/upload";
import { explainGap } from "./gaps";
import type { BenchResults, TargetCheck } from "./results";
import { round } from "./stats";

export function checkTargets(r: BenchResults): TargetCheck[] {
  const s = r.sections;
  const checks: TargetCheck[] = [];
  const cold = s.coldStart?.filter((row) => row.target.startsWith("ext ("));
  checks.push({
    id: "cold_start",
    target: "cold start < 50 ms median",
    measured: cold ? cold.map((c) => `${c.summary.median} ms (${c.target.replace("ext (compiled), ", "")})`).join(", ") : "not run",
    met: cold ? cold.every((c) => c.summary.median < 50) : null,
  });
  const ratio = s.throughput?.ratioToCeiling.c64;
  const cpuRatio = s.throughput?.cpuRatioToCeiling?.c64;
  checks.push({
    id: "get_ratio",
    target: "GET ≥ 50% of the bare ceiling at c=64",
    measured: ratio === undefined ? "not run" : `${pct(ratio)} of its req/s` + (cpuRatio === undefined ? "" : ` (${pct(cpuRatio)} of its efficiency: server CPU per request)`),
    met: ratio === undefined ? null : ratio >= 0.5,
  });
  const large = s.upload?.large;
  checks.push({ id: "upload_speed", target: "50 MB upload ≥ 200 MB/s", measured: large ? `${large.mbPerSecond} MB/s` : "not run", met: large ? large.mbPerSecond >= 200 : null });
  checks.push({ id: "upload_rss", target: "peak RSS growth during it < 32 MB", measured: large ? `+${large.peakRssGrowthMB} MB` : "not run", met: large ? large.peakRssGrowthMB < 32 : null });
  const mem = s.memory;
  checks.push({
    id: "rss_growth",
    target: "no RSS growth over 10,000 requests (slope ≤ 1 MB per 10,000 once warm)",
    measured: mem ? `${mem.steadyGrowthMBPer10k >= 0 ? "+" : ""}${mem.steadyGrowthMBPer10k} MB per 10,000 (first 10,000 incl. warm-up: +${mem.firstBatchGrowthMB} MB)` : "not run",
    met: mem ? mem.steadyGrowthMBPer10k <= 1 : null,
  });
  return checks;
}

const pct = (x: number) => `${round(x * 100)}%`;
const verdict = (met: boolean | null) => (met === null ? "—" : met ? "met" : "**missed**");
const table = (head: string[], rows: (string | number)[][]) =>
  [`| ${head.join(" | ")} |`, `|${head.map(() => "---").join("|")}|`, ...rows.map((r) => `| ${r.join(" | ")} |`)].join("\n");

export function buildReport(r: BenchResults): string {
  const { environment: env, settings, sections: s } = r;
  r.targets = checkTargets(r);
  const out: string[] = [];
  out.push("# Benchmark results", "");
  out.push(`Written by \`npm run bench\` (bench/run.ts)${settings.quick ? " in --quick mode (short runs: not comparable)" : ""}. All on one machine, loopback only, one after the other.`, "");
  out.push(
    table(
      ["", ""],
      [
        ["date (UTC)", env.date],
        ["machine", `${env.machine.cores} cores, ${env.machine.cpuModel}, ${env.machine.memoryGiB} GiB, Linux ${env.machine.kernel}`],
        ["load average (1/5/15 min) at start → end", `${env.machine.loadAvgAtStart.join(" / ")} → ${(r.loadAvgAtEnd ?? []).join(" / ")}`],
        ["emulator", `dist/ext ${env.versions.ext} (commit ${env.versions.commit}), compiled with bun ${env.versions.bun}`],
        ["load generator", `autocannon ${env.versions.autocannon} on Node ${env.versions.node}`],
        ["peer", `@stoplight/prism-cli ${env.versions.prism} (\`prism mock\` of our /openapi.json, one process, log level error)`],
        ["ceiling", `bare \`Bun.serve\` (bun ${env.versions.bun}) answering the same fixed JSON bytes as our list`],
        ["total run time", `${r.totalSeconds ?? "?"} s`],
      ],
    ),
    "",
  );

  out.push("## Targets", "", table(["target", "measured", "verdict"], r.targets.map((t) => [t.target, t.measured, verdict(t.met)])), "");

  if (s.coldStart) {
    out.push(`## 1. Cold start (spawn → first 200 of /healthz, ${settings.coldRuns} runs after one untimed run)`, "");
    out.push(table(["server", "runs", "median ms", "p95 ms", "min ms", "max ms"], s.coldStart.map((c) => [c.target + (c.note ? ` (${c.note})` : ""), c.summary.n, c.summary.median, c.summary.p95, c.summary.min, c.summary.max])), "");
  }
  if (s.throughput) {
    const t = s.throughput;
    out.push(`## 2. GET /developer/v1/extensions (auth, rate limits off, ${settings.extensionsInAccount} extensions, ${t.bodyBytes}-byte body, ${settings.loadDurationS} s each)`, "");
    const name = { ext: "ext (compiled)", ceiling: "bare Bun.serve (ceiling)", prism: "Prism" };
    out.push(
      table(
        ["server", "connections", "req/s", "p50 ms", "p99 ms", "server CPU µs/req", "vs ceiling"],
        t.rows.map((row) => {
          const top = t.rows.find((x) => x.target === "ceiling" && x.connections === row.connections)!;
          return [name[row.target], row.connections, Math.round(row.rps), row.latencyP50Ms, row.latencyP99Ms, row.serverCpuUsPerReq === null ? "—" : Math.round(row.serverCpuUsPerReq), pct(row.rps / top.rps)];
        }),
      ),
      "",
      `**ext ÷ ceiling, by req/s: ${pct(t.ratioToCeiling.c1!)} at c=1, ${pct(t.ratioToCeiling.c64!)} at c=64.**` +
        (t.cpuRatioToCeiling?.c1 !== undefined && t.cpuRatioToCeiling.c64 !== undefined
          ? ` By server CPU per request (ceiling's µs ÷ ours): ${pct(t.cpuRatioToCeiling.c1)} at c=1, ${pct(t.cpuRatioToCeiling.c64)} at c=64.`
          : ""),
      "",
      "Server CPU per request is the server process's user+system time over the run divided by the requests served: it does not depend on how fast the load generator is. " +
        "req/s does: when the server is cheap enough, the load generator (one Node process on the same 2 cores) is the bottleneck for ours and for the ceiling alike, and the req/s ratio then says more about the client than about the servers.",
      "",
    );
  }
  if (s.upload) {
    const u = s.upload;
    out.push("## 3. POST /developer/v1/extensions/:id/versions (valid bundles, random bytes so gzip cannot shrink them)", "");
    out.push(table(["bundle", "clients", "submissions", "seconds", "submissions/s"], u.small.map((row) => [`${round(u.smallBundleBytes / 1024 / 1024, 2)} MB`, row.connections, row.submissions, row.seconds, row.perSecond])), "");
    const large = (l: LargeUpload, label: string) => [
      `${round(l.bundleBytes / 1024 / 1024, 1)} MB, ${l.sounds} FLAC sounds + assets (${label})`,
      l.seconds,
      l.mbPerSecond,
      `${l.baselineRssMB} MB`,
      `+${l.peakRssGrowthMB} MB`,
    ];
    out.push(
      table(["bundle", "seconds (send → 202)", "MB/s", "server RSS before", "peak RSS growth"], [large(u.large, "the target row"), large(u.halfSizeControl, "control: half the size")]),
      "",
      `Seconds: the median of ${u.large.runs?.length ?? 1} run(s) of each size (${(u.large.runs ?? []).map((r) => `${r.seconds} s`).join(", ")} for the target row); peak RSS growth: the largest of them (${(u.large.runs ?? []).map((r) => `+${r.peakRssGrowthMB} MB`).join(", ")}). ` +
        `Peak: ${u.large.peakMethod}. Each large upload runs on a fresh server after one 1 MB warm-up submission. The half-size control tells streaming from buffering: a server that held the bundle would grow about half as much with half the bundle.`,
      "",
    );
  } else if (s.uploadError) {
    out.push("## 3. POST /developer/v1/extensions/:id/versions", "", `Not measured: ${s.uploadError}`, "");
  }
  if (s.memory) {
    const m = s.memory;
    out.push(`## 4. Memory (RSS of the compiled emulator; batches of ${settings.memoryBatch.toLocaleString("en")} GETs at 64 connections)`, "");
    out.push(table(["after", "RSS MB"], [["start, idle 1 s", m.idleRssMB], ...m.afterBatches.map((b) => [`${b.requests.toLocaleString("en")} requests`, b.rssMB])]), "");
    out.push(
      `Slope over the batches after the first (least squares): ${m.steadyGrowthMBPer10k} MB per 10,000 requests. The first batch's growth (+${m.firstBatchGrowthMB} MB) is warm-up: JIT code, 64 sockets' buffers, the allocator's arenas; after it RSS moves by a few MB either way with garbage collection.`,
      "",
    );
  }
  if (s.dashboard) out.push(...dashboardReport(s.dashboard));
  const gaps = r.targets.filter((t) => t.met === false);
  if (gaps.length > 0) {
    out.push("## Where a target is missed: why, and what would close it", "");
    for (const g of gaps) out.push(`- **${g.target}** (${g.measured}): ${explainGap(g.id, r)}`);
    out.push("");
  }
  out.push("## How to read this", "", ...readingNotes(r), "");
  return out.join("\n");
}

function readingNotes(r: BenchResults): string[] {
  const notes = [
    "- The load generator runs on the same cores as the server under test. On a small machine it is the bottleneck for the fastest server, so the ceiling's req/s is a floor of what Bun.serve can do and every ratio to it is flattering; the server-CPU-per-request column is the figure that does not depend on the client.",
    "- Cold start runs get a fresh empty data directory each (migrations every time); one untimed run first so the 120 MB binary is in the page cache.",
    "- The emulator runs as users run it: compiled binary, SQLite file on disk (WAL), log level warn.",
    "- Prism answers from the document's schemas and examples: a one-item list of ~250 bytes where ours returns the account's 10 extensions, and no state at all (nothing it answers was ever stored).",
  ];
  const load = r.environment.machine.loadAvgAtStart[0] ?? 0;
  if (load > r.environment.machine.cores * 0.5) notes.push(`- The machine was busy when this ran (load ${load} on ${r.environment.machine.cores} cores): expect the figures to be lower and noisier than on an idle machine.`);
  return notes;
}
