/**
 * Why a missed target is missed: the run's own figures, then the causes found by profiling, which are data
 * in bench/results/gaps.md (one `## key` section each), not prose in code. Keyed by TargetCheck id; imports
 * only the results' types, so no module here imports back.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { RESULTS_DIR } from "./paths";
import type { BenchResults } from "./results";
import { round } from "./stats";

export const GAPS_FILE = join(RESULTS_DIR, "gaps.md");

let sections: Map<string, string> | null = null;

function gaps(): Map<string, string> {
  sections ??= parseGaps(readFileSync(GAPS_FILE, "utf8"));
  return sections;
}

/** The paragraph under `## key` in gaps.md; a key the file lacks is the bench's bug, so it throws. */
export function gapText(key: string): string {
  const text = gaps().get(key);
  if (text === undefined) throw new Error(`${GAPS_FILE} has no "## ${key}" section`);
  return text;
}

/** `## key` headings, each followed by its text (lines joined by spaces); what precedes the first is a preface. */
export function parseGaps(markdown: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of markdown.split(/^## /m).slice(1)) {
    const newline = part.indexOf("\n");
    const key = part.slice(0, newline).trim();
    out.set(
      key,
      part
        .slice(newline + 1)
        .trim()
        .split(/\s*\n\s*/)
        .join(" "),
    );
  }
  return out;
}

interface LoadLike {
  rps: number;
  serverCpuUsPerReq: number | null;
}
interface RouteRowLike {
  id: string;
  label: string;
  ratio: number;
  ext: LoadLike;
  ceiling: LoadLike;
  writeCeiling?: LoadLike;
}

function routeRows(r: BenchResults): RouteRowLike[] {
  return ((r.sections.routes as { rows?: RouteRowLike[] } | undefined)?.rows ?? []) as RouteRowLike[];
}

function cpuLine(row: RouteRowLike, ceiling: LoadLike = row.ceiling, name = "the ceiling's"): string {
  const ours = row.ext.serverCpuUsPerReq;
  const top = ceiling.serverCpuUsPerReq;
  if (!ours || !top) return "";
  return `${row.label}: ${Math.round(ours)} µs of server CPU per request against ${name} ${Math.round(top)} µs. `;
}

function getRatio(r: BenchResults): string {
  const row = routeRows(r).find((x) => x.id === "list");
  return (row ? cpuLine(row) : "") + gapText("get_ratio");
}

const WRITES = new Set(["create", "patch", "secret"]);

function routeFloor(r: BenchResults): string {
  const low = routeRows(r).filter((x) => x.ratio < 0.3);
  const text = low.map((x) => cpuLine(x) + (gaps().get(`route ${x.id}`) ?? "")).join(" ");
  return (
    (low.some((x) => WRITES.has(x.id)) ? `${gapText("write_cost")} ` : "") +
    (text || "No route below 30% in this run's results.")
  );
}

function writeRatio(r: BenchResults): string {
  const lines = routeRows(r)
    .map((x) => (x.writeCeiling ? cpuLine(x, x.writeCeiling, "the fair write ceiling's") : ""))
    .join("");
  return lines + gapText("write_ratio");
}

/** This run's start-up trace, then the explanation under `key`. */
function coldStart(r: BenchResults, key = "cold_start"): string {
  const trace = (r.sections.cold as { trace?: string[] } | undefined)?.trace ?? [];
  return (
    (trace.length > 0
      ? `This run's start-up trace: ${trace.map((l) => l.replace(/^\[startup\]\s*/, "")).join("; ")}. `
      : "") + gapText(key)
  );
}

function uploadSpeed(r: BenchResults): string {
  const l = (r.sections.upload as { large?: { seconds: number; bundleBytes: number; runs?: unknown[] } } | undefined)
    ?.large;
  const at = l
    ? `${l.seconds} s for ${round(l.bundleBytes / 1024 / 1024, 1)} MB (median of ${l.runs?.length ?? 1}). `
    : "";
  return at + gapText("upload_speed");
}

function rssGrowth(r: BenchResults): string {
  const m = r.sections.memory as { afterBatches?: { rssMB: number }[] } | undefined;
  const batches = m?.afterBatches ? m.afterBatches.map((b) => `${b.rssMB} MB`).join(" → ") : "";
  return `RSS after each batch: ${batches}. ${gapText("rss_growth")}`;
}

export function explainGap(id: string, r: BenchResults): string {
  switch (id) {
    case "cold_start":
      return coldStart(r);
    case "get_ratio":
      return getRatio(r);
    case "get_floor":
      return "The same row as the 60% target above: what is left is said there.";
    case "route_floor":
      return routeFloor(r);
    case "upload_speed":
      return uploadSpeed(r);
    case "upload_rss":
      return gapText("upload_rss");
    case "rss_growth":
      return rssGrowth(r);
    case "reset_bun":
    case "reset_node":
      return gapText("reset");
    case "node_start":
      return `${gapText("node_start")} ${coldStart(r)}`;
    case "cold_vs_floor":
    case "cold_api_vs_floor":
      return coldStart(r, "cold_vs_floor");
    case "write_ratio":
      return writeRatio(r);
    default:
      return "No explanation recorded for this target.";
  }
}
