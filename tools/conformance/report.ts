/**
 * The three ways a run is told: a readable summary (differences with the request and both answers side by
 * side), JSON (the run as data), and JUnit XML for CI (one <testcase> per check; a spec difference is a
 * <failure>, a "not shown" choice that differs passes with the two choices in <system-out>).
 */
import { printable } from "../../common/text/printable";
import { retryWords } from "./rate-budget";
import type { CheckResult, RunReport } from "./types";

/** A spec check that fails the run: differs, and not as the given profile says; or shows a stale profile entry. */
export function fails(r: CheckResult): boolean {
  return (r.kind === "spec" && r.outcome === "differed" && !r.asProfiled) || (r.stale?.length ?? 0) > 0;
}

/**
 * True when nothing the spec says differs (beyond what a given profile holds), a given profile is neither
 * stale nor short of a difference, the rate limits did not stop the run and nothing was left behind: exit 0.
 */
export function conforms(report: RunReport): boolean {
  const check = report.observed.check;
  return (
    !report.interrupted &&
    !report.rateLimited &&
    report.cleanup.removed &&
    !report.results.some(fails) &&
    (check === undefined || (check.stale.length === 0 && check.added.length === 0))
  );
}

const count = (rs: CheckResult[], kind: string, outcome: string) =>
  rs.filter((r) => r.kind === kind && r.outcome === outcome).length;

function side(label: string, text: string): string[] {
  const lines = printable(text).split("\n");
  return lines.map((l, i) => `      ${i === 0 ? label : " ".repeat(label.length)} ${l}`);
}

/** "3 checks: a, b, c" (at most eight named). */
function checksWords(checks: string[]): string {
  const named = checks.slice(0, 8).join(", ") + (checks.length > 8 ? `, … ${checks.length - 8} more` : "");
  return `${checks.length} ${checks.length === 1 ? "check" : "checks"}: ${named}`;
}

/** One line per cause with the checks it explains, then what a profile cannot hold. */
function causeLines(report: RunReport): string[] {
  const { causes, leftOut } = report.observed;
  const out: string[] = [];
  if (causes.length > 0) out.push("Differences by cause (a profile can hold these: --save-profile FILE):");
  for (const c of causes) out.push(`  ${printable(c.cause)} — ${checksWords(c.checks)}`);
  if (leftOut.length > 0) out.push("Differences a profile cannot hold (another rule, another state):");
  for (const c of leftOut) out.push(`  ${printable(c.cause)} — ${checksWords(c.checks)}`);
  return out.length > 0 ? [...out, ""] : out;
}

function profileLines(report: RunReport): string[] {
  const check = report.observed.check;
  if (!check) return [];
  const out = [
    "",
    `Against the profile: ${check.confirmed.length} entries the target still shows, ${check.stale.length} stale, ${check.added.length} not in it, ${check.notExercised.length} not exercised by this run`,
  ];
  for (const s of check.stale) out.push(`  STALE  ${printable(s)} (the target no longer answers so)`);
  for (const s of check.added) out.push(`  NEW    ${printable(s)} (the profile does not hold it)`);
  for (const s of check.notExercised) out.push(`  not exercised: ${printable(s)}`);
  return out;
}

/** "rate-limited at extensions.create; retry after 42 s (about 10:31)". */
export function rateLimitedLine(report: RunReport): string | null {
  const r = report.rateLimited;
  if (!r) return null;
  return `rate-limited at ${r.check ?? r.request}; ${retryWords(r.retryAfterSeconds)} — ${r.reason} (${r.request})`;
}

export function textReport(report: RunReport): string[] {
  const rs = report.results;
  const out: string[] = [];
  if (report.dryRun) {
    out.push(`dry run against ${printable(report.target)}: ${report.requests.length} requests would be sent:`);
    for (const r of report.requests) out.push(`  ${r.method} ${printable(decodeURIComponent(r.path))}`);
    return out;
  }
  out.push(...causeLines(report));
  const differed = rs.filter((r) => r.kind === "spec" && r.outcome === "differed");
  for (const r of differed) {
    out.push(`${r.asProfiled ? "PROFILED" : "DIFFERS "} ${r.id}: ${printable(r.name)}`);
    if (r.note) out.push(`      ${printable(r.note)}`);
    if (r.exchange) {
      const q = r.exchange.request;
      out.push(`      request  ${q.method} ${printable(q.path)}${q.body ? ` ${printable(q.body.slice(0, 200))}` : ""}`);
    }
    out.push(...side("ext    ", r.expected));
    out.push(...side("target ", r.got || "(nothing)"));
  }
  for (const r of rs.filter((x) => x.outcome !== "differed" && (x.stale?.length ?? 0) > 0))
    out.push(`STALE    ${r.id}: ${printable(r.name)}: the profile says ${printable(r.stale!.join("; "))}`);
  const choices = rs.filter((r) => r.kind === "choice" && r.outcome === "differed");
  if (choices.length > 0) out.push("", "Not shown in the spec, chosen differently (not failures):");
  for (const r of choices)
    out.push(
      `  CHOICE ${r.id}: ${printable(r.name)}: the target chose ${printable(r.got)}, ext chose ${printable(r.expected)}`,
    );
  const skipped = rs.filter((r) => r.outcome === "skipped");
  for (const r of skipped) out.push(`  skipped ${r.id}: ${printable(r.note ?? "")}`);
  out.push(...profileLines(report));
  const failing = differed.filter((r) => !r.asProfiled).length;
  const profiled = differed.length - failing;
  out.push(
    "",
    `${printable(report.target)}: ${count(rs, "spec", "passed")} passed, ${failing} differ${profiled > 0 ? `, ${profiled} differ as the profile says` : ""}, ` +
      `${count(rs, "choice", "passed")} choices the same, ${choices.length} chosen differently, ${skipped.length} skipped`,
  );
  if (report.interrupted) out.push("interrupted: the run stopped early");
  const limited = rateLimitedLine(report);
  if (limited) out.push(printable(limited));
  const c = report.cleanup;
  if (!c.removed)
    out.push(
      `LEFT BEHIND: scratch extension ${printable(c.extensionId ?? "(unknown id)")}: ${printable(c.reason ?? "")}`,
    );
  else if (c.extensionId) out.push(`cleanup: scratch extension ${printable(c.extensionId)} deleted`);
  return out;
}

export function jsonReport(report: RunReport): string {
  return JSON.stringify({ conforms: conforms(report), ...report });
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: XML 1.0 forbids these C0 controls even escaped.
const C0 = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g;
const xml = (s: string) =>
  s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!).replace(C0, "");

export function junitReport(report: RunReport): string {
  const rs = report.results;
  const failures = rs.filter(fails).length + (report.cleanup.removed ? 0 : 1);
  const cases = rs.map((r) => {
    const head = `  <testcase classname="conformance.${xml(r.kind === "choice" ? "choices" : r.group.replace(/\s+/g, "-"))}" name="${xml(`${r.id}: ${r.name}`)}">`;
    if (r.outcome === "skipped") return `${head}<skipped message="${xml(r.note ?? "")}"/></testcase>`;
    if (fails(r)) {
      const request = r.exchange ? `${r.exchange.request.method} ${r.exchange.request.path}\n` : "";
      const stale = r.stale?.length ? `stale profile entry: ${r.stale.join("; ")}` : "";
      const message = r.outcome === "differed" ? (r.note ?? "differs") : stale;
      const detail =
        r.outcome === "differed" ? `${request}ext:    ${r.expected}\ntarget: ${r.got}` : `${request}${stale}`;
      return `${head}<failure message="${xml(message)}">${xml(detail)}</failure></testcase>`;
    }
    if (r.asProfiled)
      return `${head}<system-out>${xml(`as the profile says: ${r.note ?? ""}`)}</system-out></testcase>`;
    if (r.outcome === "differed") return `${head}<system-out>${xml(r.note ?? "")}</system-out></testcase>`;
    return `${head}</testcase>`;
  });
  if (!report.cleanup.removed)
    cases.push(
      `  <testcase classname="conformance.cleanup" name="cleanup: the scratch extension is deleted"><failure message="${xml(`${report.cleanup.extensionId}: ${report.cleanup.reason}`)}"/></testcase>`,
    );
  const skipped = rs.filter((r) => r.outcome === "skipped").length;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuite name="ext conformance ${xml(report.target)}" tests="${cases.length}" failures="${failures}" errors="0" skipped="${skipped}" timestamp="${xml(report.startedAt)}">`,
    ...cases,
    "</testsuite>",
    "",
  ].join("\n");
}
