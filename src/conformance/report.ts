/**
 * The three ways a run is told: a readable summary (differences with the request and both answers side by
 * side), JSON (the run as data), and JUnit XML for CI (one <testcase> per check; a spec difference is a
 * <failure>, a "not shown" choice that differs passes with the two choices in <system-out>).
 */
import { printable } from "../printable";
import type { CheckResult, RunReport } from "./types";

/** True when nothing the spec says differs and nothing was left behind: exit 0. */
export function conforms(report: RunReport): boolean {
  return (
    !report.interrupted &&
    report.cleanup.removed &&
    !report.results.some((r) => r.kind === "spec" && r.outcome === "differed")
  );
}

const count = (rs: CheckResult[], kind: string, outcome: string) =>
  rs.filter((r) => r.kind === kind && r.outcome === outcome).length;

function side(label: string, text: string): string[] {
  const lines = printable(text).split("\n");
  return lines.map((l, i) => `      ${i === 0 ? label : " ".repeat(label.length)} ${l}`);
}

export function textReport(report: RunReport): string[] {
  const rs = report.results;
  const out: string[] = [];
  if (report.dryRun) {
    out.push(`dry run against ${printable(report.target)}: ${report.requests.length} requests would be sent:`);
    for (const r of report.requests) out.push(`  ${r.method} ${printable(decodeURIComponent(r.path))}`);
    return out;
  }
  const differed = rs.filter((r) => r.kind === "spec" && r.outcome === "differed");
  for (const r of differed) {
    out.push(`DIFFERS  ${r.id}: ${printable(r.name)}`);
    if (r.note) out.push(`      ${printable(r.note)}`);
    if (r.exchange) {
      const q = r.exchange.request;
      out.push(`      request  ${q.method} ${printable(q.path)}${q.body ? ` ${printable(q.body.slice(0, 200))}` : ""}`);
    }
    out.push(...side("ext    ", r.expected));
    out.push(...side("target ", r.got || "(nothing)"));
  }
  const choices = rs.filter((r) => r.kind === "choice" && r.outcome === "differed");
  if (choices.length > 0) out.push("", "Not shown in the spec, chosen differently (not failures):");
  for (const r of choices)
    out.push(
      `  CHOICE ${r.id}: ${printable(r.name)}: the target chose ${printable(r.got)}, ext chose ${printable(r.expected)}`,
    );
  const skipped = rs.filter((r) => r.outcome === "skipped");
  for (const r of skipped) out.push(`  skipped ${r.id}: ${printable(r.note ?? "")}`);
  out.push(
    "",
    `${printable(report.target)}: ${count(rs, "spec", "passed")} passed, ${differed.length} differ, ` +
      `${count(rs, "choice", "passed")} choices the same, ${choices.length} chosen differently, ${skipped.length} skipped`,
  );
  if (report.interrupted) out.push("interrupted: the run stopped early");
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
  const failures =
    rs.filter((r) => r.kind === "spec" && r.outcome === "differed").length + (report.cleanup.removed ? 0 : 1);
  const cases = rs.map((r) => {
    const head = `  <testcase classname="conformance.${xml(r.kind === "choice" ? "choices" : r.group.replace(/\s+/g, "-"))}" name="${xml(`${r.id}: ${r.name}`)}">`;
    if (r.outcome === "skipped") return `${head}<skipped message="${xml(r.note ?? "")}"/></testcase>`;
    if (r.outcome === "differed" && r.kind === "spec") {
      const request = r.exchange ? `${r.exchange.request.method} ${r.exchange.request.path}\n` : "";
      return `${head}<failure message="${xml(r.note ?? "differs")}">${xml(`${request}ext:    ${r.expected}\ntarget: ${r.got}`)}</failure></testcase>`;
    }
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
