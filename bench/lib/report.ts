/** The results as Markdown (bench/results/latest.md): the run's conditions, the targets, then each section. */

import { explainGap } from "./gaps";
import { table, verdict } from "./markdown";
import type { BenchResults, BenchSection, TargetCheck } from "./results";
import { sectionError } from "./results";

/** Every target of every section, judged (a section not run or failed gives "not run", neither met nor missed). */
export function checkTargets(r: BenchResults, sections: BenchSection[]): TargetCheck[] {
  const checks: TargetCheck[] = [];
  for (const s of sections) {
    const result = r.sections[s.id];
    const usable = result !== undefined && sectionError(result) === null ? result : undefined;
    for (const check of s.targets?.(usable, r) ?? []) {
      if (check.met === false) check.explanation = explainGap(check.id, r);
      checks.push(check);
    }
  }
  return checks;
}

export function buildReport(r: BenchResults, sections: BenchSection[]): string {
  const { environment: env, settings } = r;
  r.targets = checkTargets(r, sections);
  const out: string[] = [];
  out.push("# Benchmark results", "");
  out.push(
    `Written by \`npm run bench\` (bench/run.ts)${settings.quick ? " in --quick mode (short runs: not comparable)" : ""}. All on one machine, loopback only, one after the other.`,
    "",
  );
  out.push(
    table(
      ["", ""],
      [
        ["date (UTC)", env.date],
        [
          "machine",
          `${env.machine.cores} cores, ${env.machine.cpuModel}, ${env.machine.memoryGiB} GiB, Linux ${env.machine.kernel}`,
        ],
        [
          "load average (1/5/15 min) at start → end",
          `${env.machine.loadAvgAtStart.join(" / ")} → ${(r.loadAvgAtEnd ?? []).join(" / ")}`,
        ],
        [
          "emulator",
          `dist/ext ${env.versions.ext} (commit ${env.versions.commit}), compiled with bun ${env.versions.bun}`,
        ],
        ["load generator", `wrk ${env.versions.wrk} (1 thread), bench/wrk/request.lua`],
        [
          "peer",
          `@stoplight/prism-cli ${env.versions.prism} on Node ${env.versions.node} (\`prism mock\` of our /openapi.json, one process, log level error)`,
        ],
        [
          "ceiling",
          `bare \`Bun.serve\` (bun ${env.versions.bun}) answering each route's captured status and bytes (bench/ceiling.ts)`,
        ],
        ["total run time", `${r.totalSeconds ?? "?"} s`],
      ],
    ),
    "",
  );
  if (env.note) out.push(`**Conditions:** ${env.note}`, "");

  out.push(
    "## Targets",
    "",
    table(
      ["target", "measured", "verdict"],
      r.targets.map((t) => [t.target, t.measured, verdict(t.met)]),
    ),
    "",
  );
  const missed = r.targets.filter((t) => t.met === false);
  if (missed.length > 0) {
    out.push("## Where a target is missed: what is left, and whose code it is in", "");
    for (const g of missed) out.push(`- **${g.target}** (${g.measured}): ${g.explanation}`);
    out.push("");
  }
  for (const s of sections) {
    const result = r.sections[s.id];
    if (result === undefined) continue;
    const error = sectionError(result);
    out.push(...(error ? [`## ${s.label}`, "", `Not measured: ${error}`, ""] : s.render(result, r)));
  }
  out.push("## How to read this", "", ...readingNotes(r), "");
  return out.join("\n");
}

function readingNotes(r: BenchResults): string[] {
  const notes = [
    "- wrk (one thread, C) runs on the same 2 cores as the server under test: the ceiling's req/s is what Bun.serve does with one core while wrk has the other. The server-CPU-per-request columns do not depend on the client at all.",
    "- The ceiling is measured right after each of our rows, against the same status and bytes, so a busy moment on the machine touches both figures of a row alike.",
    "- Cold start runs get a fresh empty data directory each (migrations every time); one untimed run first so the binary is in the page cache.",
    "- The emulator runs as users run it: compiled binary, SQLite file on disk (WAL), log level warn.",
  ];
  const load = r.environment.machine.loadAvgAtStart[0] ?? 0;
  if (load > r.environment.machine.cores * 0.5)
    notes.push(
      `- The machine was busy when this ran (load ${load} on ${r.environment.machine.cores} cores): expect the figures to be lower and noisier than on an idle machine.`,
    );
  return notes;
}
