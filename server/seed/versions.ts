/**
 * A fixture extension's `versions` and install statistics (`installs`, format 1; `installCounters`, as an
 * export stores them). Each version is inserted by the versions' one writer as a submission inserts it —
 * pending, on its exported bundle or on a placeholder holding only its manifest — and gets its status from
 * review's transitions (server/resources/versions/review.ts): approved, rejected, archived, with the timestamps the entry
 * gives (the load's instant where it gives none). A status its timestamps contradict, or a sequence review
 * would refuse, is refused with review's own words. The current version is review's too: the newest approved
 * one; a `currentVersionId` naming another is refused.
 */
import { checkInstallTotals } from "../resources/installs/service";
import type { ReviewEvent } from "../resources/versions/review";
import type { Version } from "../resources/versions/writer";
import { apiRule, FixtureError, type FixtureProblem } from "./fixture-error";
import type { Load } from "./load";
import type { FixtureExtension, FixtureVersion } from "./model";

const problem = (path: string, message: string) => new FixtureError([{ path, message }]);

/** A version's status when the entry gives none: the fixture format's default, its one home. */
export const FIXTURE_VERSION_STATUS = "approved";

/** The review events that bring a new (pending) version to what the entry says, in the order review takes them. */
function reviewEvents(v: FixtureVersion, now: string, at: string): ReviewEvent[] {
  const status = v.status ?? FIXTURE_VERSION_STATUS;
  const events: ReviewEvent[] = [];
  if (v.approvedAt !== undefined || status === "approved") events.push({ to: "approved", at: v.approvedAt ?? now });
  if (v.rejectedAt !== undefined || v.rejectReason !== undefined || status === "rejected") {
    if (v.rejectReason === undefined)
      throw problem(`${at}.rejectReason`, "review rejects with a reason: give the version's rejectReason");
    events.push({ to: "rejected", at: v.rejectedAt ?? now, reason: v.rejectReason });
  }
  if (v.archivedAt !== undefined || status === "archived") events.push({ to: "archived", at: v.archivedAt ?? now });
  return events;
}

/**
 * Creates the entry's versions that do not exist yet (found by id, or by label when the entry has none).
 * `playsReview`: the extension's status follows each submission and decision, as the API's does; otherwise
 * (an exported row, or a fixture that gives the status) it keeps its own.
 */
export function loadVersions(
  load: Load,
  extensionId: string,
  x: FixtureExtension,
  at: string,
  playsReview: boolean,
): void {
  const { writer, review } = load.deps.services.versions;
  const { now } = load;
  let newest: string | null = null;
  for (const [k, v] of (x.versions ?? []).entries()) {
    const vat = `${at}.versions[${k}]`;
    if (v.id !== undefined) {
      const found = writer.byId(v.id);
      if (found?.extensionId === extensionId) continue;
      // Another extension's: refused by the writer.
    } else if (writer.byLabel(extensionId, v.version)) continue;
    const events = reviewEvents(v, now, vat);
    const bundle = load.bundles.forVersion(v, vat);
    // The entry's fields as they are (the writer takes those it inserts: a new column is one field of the
    // fixture model and one of the writer, nothing here), with what the load decides.
    const submitted = { ...v, extensionId, bundle, submittedAt: v.submittedAt ?? now };
    let row: Version = apiRule(vat, () => writer.insertVersion(submitted));
    if (playsReview) review.afterSubmission(extensionId, now);
    for (const event of events) {
      row = apiRule(`${vat}.status`, () => review.decide(row, event));
      if (!playsReview) continue;
      if (event.to === "approved") review.afterApproval(extensionId, now);
      else if (event.to === "rejected") review.afterRejection(extensionId, now);
    }
    const status = v.status ?? FIXTURE_VERSION_STATUS;
    if (row.status !== status)
      throw problem(`${vat}.status`, `the version's timestamps make it ${row.status}, not ${status}`);
    newest = row.id;
  }
  const current = review.currentOf(extensionId);
  if (x.currentVersionId !== undefined && x.currentVersionId !== current) {
    const named = writer.byId(x.currentVersionId);
    const newest = current === null ? "none is approved" : `"${writer.byId(current)?.version}"`;
    throw problem(
      `${at}.currentVersionId`,
      named?.extensionId === extensionId
        ? `"${x.currentVersionId}" is version "${named.version}", not the current one: review makes the newest approved version current (${newest})`
        : `"${x.currentVersionId}" names no version of this extension`,
    );
  }
  review.syncCurrent(extensionId);
  // Past the cap the oldest are archived, as a submission archives them (never the current one).
  if (newest !== null) review.enforceCap(extensionId, newest, now);
}

/** The extension's versions by label, for the statistics: each must exist and have been approved. */
function installable(load: Load, extensionId: string, label: string, at: string, problems: FixtureProblem[]) {
  const version = load.deps.services.versions.writer.byLabel(extensionId, label);
  if (!version) problems.push({ path: at, message: `the extension has no version "${label}": list it under versions` });
  else if (version.approvedAt === null)
    problems.push({
      path: at,
      message: `version "${label}" is ${version.status}; only approved versions have installs`,
    });
  return version?.approvedAt ? version : undefined;
}

/**
 * `installs` replaces the extension's statistics: `byVersion` the installs ever per label, `active` (default:
 * all) how many are still installed, the oldest versions losing the uninstalled first. `installCounters` sets
 * each listed version's counters as exported. Either way the extension's totals are held to the API's rule
 * (checkInstallTotals): at most 10^12 recorded, never more active than recorded.
 */
export function loadInstalls(load: Load, extensionId: string, x: FixtureExtension, at: string): void {
  if (!x.installs && !x.installCounters) return;
  const installs = load.deps.services.installs;
  const problems: FixtureProblem[] = [];
  if (x.installs) {
    const listed = new Map(Object.entries(x.installs.byVersion));
    const rows = new Map<string, Version>();
    for (const label of listed.keys()) {
      const row = installable(load, extensionId, label, `${at}.installs.byVersion.${label}`, problems);
      if (row) rows.set(label, row);
    }
    if (problems.length > 0) throw new FixtureError(problems);
    const total = [...listed.values()].reduce((a, b) => a + b, 0);
    let uninstalled = Math.max(0, total - (x.installs.active ?? total));
    const kept = new Set<string>();
    for (const row of [...rows.values()].sort((a, b) => a.seq - b.seq)) {
      const installed = listed.get(row.version) ?? 0;
      if (installed === 0) continue;
      const gone = Math.min(uninstalled, installed);
      uninstalled -= gone;
      installs.setCounters(extensionId, row.id, { installed, active: installed - gone });
      kept.add(row.id);
    }
    for (const versionId of installs.versionsWithCounters(extensionId))
      if (!kept.has(versionId)) installs.removeCounters(extensionId, versionId);
    const active = x.installs.active ?? total;
    apiRule(`${at}.installs`, () => checkInstallTotals(total, active, { installed: "byVersion", active: "active" }));
  }
  for (const [k, c] of (x.installCounters ?? []).entries()) {
    const cat = `${at}.installCounters[${k}]`;
    const row = installable(load, extensionId, c.version, `${cat}.version`, problems);
    if (!row) throw new FixtureError(problems);
    installs.setCounters(extensionId, row.id, { installed: c.installed, active: c.active }, c.firstInstalledAt);
  }
  if (x.installCounters) {
    const totals = installs.totals(extensionId);
    const field = { installed: "installCounters", active: "installCounters" };
    apiRule(at, () => checkInstallTotals(totals.total, totals.active, field));
  }
}
