/**
 * What `ext deploy` prints about a deploy, on every outcome: what was packed (a file tree on a dry run, one
 * line otherwise), what was left out and why, what was uploaded, the version and, for a rejection, the
 * review's reason. A failure after packing prints the same lines before its error, so nothing learnt is lost.
 */

import type { DeployReport } from "../../../client/deploy-result";
import { formatBytes, plural } from "../../../common/text/format";
import { printable } from "../../../common/text/printable";

/** The excluded paths named in the one-line summary; the rest are counted ("…and 4 more"). */
const SUMMARY_EXCLUDED_NAMES = 5;
const SIZE_WIDTH = 9;

/** "packed 6 files, 1.2 KB (archive 640 B, sha256 …); left out 3: .DS_Store, .env, .git/" */
export function packedLine(r: DeployReport): string {
  const total = r.files.reduce((sum, f) => sum + f.bytes, 0);
  let line = `packed ${plural(r.files.length, "file")}, ${formatBytes(total)} (archive ${formatBytes(r.bundle.bytes)}, sha256 ${r.bundle.sha256})`;
  if (r.excluded.length > 0) {
    const named = r.excluded.slice(0, SUMMARY_EXCLUDED_NAMES).map((e) => printable(e.path));
    const more = r.excluded.length - named.length;
    line += `; left out ${r.excluded.length}: ${named.join(", ")}${more > 0 ? ` and ${more} more (see --dry-run)` : ""}`;
  }
  return line;
}

/** The packed files as an indented tree with sizes; component folders and sounds measured against their limits. */
export function fileTree(r: DeployReport): string[] {
  const components = new Map(r.components.map((c) => [c.path, c]));
  const sounds = new Set(r.sounds.map((s) => s.path));
  const rows: { label: string; size: string; note: string }[] = [];
  let open: string[] = [];
  for (const file of r.files) {
    const parts = printable(file.path).split("/");
    const dirs = parts.slice(0, -1);
    let same = 0;
    while (same < open.length && same < dirs.length && open[same] === dirs[same]) same++;
    for (let depth = same; depth < dirs.length; depth++) {
      const component = depth === 0 ? components.get(`${dirs[0]}/`) : undefined;
      const note = component
        ? `component: ${formatBytes(component.gzipBytes)} gzipped of ${formatBytes(component.limit)}`
        : "";
      rows.push({ label: `${"  ".repeat(depth)}${dirs[depth]}/`, size: "", note });
    }
    open = dirs;
    const note = sounds.has(file.path)
      ? `sound: limit ${formatBytes(r.soundFileLimits.max)}, warning over ${formatBytes(r.soundFileLimits.warning)}`
      : "";
    rows.push({ label: `${"  ".repeat(dirs.length)}${parts.at(-1)}`, size: formatBytes(file.bytes), note });
  }
  const width = Math.max(0, ...rows.map((row) => row.label.length));
  const total = r.files.reduce((sum, f) => sum + f.bytes, 0);
  const lines = [`files (${plural(r.files.length, "file")}, ${formatBytes(total)}):`];
  for (const row of rows)
    lines.push(
      `  ${row.label.padEnd(width)} ${row.size.padStart(SIZE_WIDTH)}${row.note ? `  ${row.note}` : ""}`.trimEnd(),
    );
  if (r.excluded.length > 0) {
    const excluded = r.excluded.map((e) => ({ path: printable(e.path), rule: printable(e.rule) }));
    const w = Math.max(...excluded.map((e) => e.path.length));
    lines.push(`left out (${excluded.length}):`);
    for (const e of excluded) lines.push(`  ${e.path.padEnd(w)}  ${e.rule}`);
  }
  return lines;
}

/** Everything after the packing: the upload, the version, its review. */
function outcomeLines(r: DeployReport): string[] {
  const lines: string[] = [];
  if (r.upload) {
    const whole = r.upload.sent >= r.upload.total;
    lines.push(
      `uploaded ${formatBytes(r.upload.sent)}${whole ? "" : ` of ${formatBytes(r.upload.total)}`} to ${printable(r.upload.url)}${whole ? "" : " (incomplete)"}`,
    );
    if (r.versionId === null) lines.push(`no version was created for ${r.version} of ${r.extensionId}`);
  }
  // Nothing uploaded is a failure before the upload, whose own error says so: said once, there.
  if (r.versionId !== null)
    lines.push(
      `version ${printable(r.versionId)} (${printable(r.version)}) of ${printable(r.extensionId)}: ${printable(String(r.status))}${r.reason ? ` (reason: ${printable(r.reason)})` : ""}`,
    );
  return lines;
}

/**
 * The human report: the tree on a dry run, the one-line summary otherwise, then the sound count and the
 * outcome. `passed` says whether the checks passed (a dry run says so in its last line).
 */
export function reportLines(r: DeployReport, passed: boolean): string[] {
  const lines = r.dryRun ? [...fileTree(r), packedLine(r)] : [packedLine(r)];
  lines.push(
    `sounds: ${r.soundLimit.used} of ${printable(String(r.soundLimit.value ?? "?"))} (${printable(String(r.soundLimit.source ?? "?"))})`,
  );
  if (r.dryRun)
    lines.push(
      `dry run: ${r.extensionId} ${r.version} ${passed ? "passes every check; nothing was uploaded" : "would be refused"}`,
    );
  else lines.push(...outcomeLines(r));
  return lines;
}
