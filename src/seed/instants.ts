/**
 * Every timestamp of a fixture, checked by the clock's own rule (src/clock.ts readStoredInstant): a calendar
 * instant inside the clock's range, written as the clock writes it. The schema's pattern only gives the shape;
 * 2026-13-45 and 2026-02-31 have it too.
 */
import { readStoredInstant } from "../clock";
import type { FixtureProblem } from "./messages";
import type { Fixture } from "./model";

type Stamped = { [field: string]: unknown };

function check(entry: Stamped | undefined, fields: readonly string[], at: string, problems: FixtureProblem[]) {
  for (const field of fields) {
    const value = entry?.[field];
    if (typeof value !== "string") continue;
    const read = readStoredInstant(value);
    if (read.problem !== undefined) problems.push({ path: at ? `${at}.${field}` : field, message: read.problem });
  }
}

export function checkInstants(fixture: Fixture, problems: FixtureProblem[]): void {
  check(fixture, ["exportedAt"], "", problems);
  check(fixture.clock, ["now"], "clock", problems);
  fixture.accounts.forEach((acc, i) => {
    const at = `accounts[${i}]`;
    check(acc, ["createdAt"], at, problems);
    acc.apiKeys?.forEach((k, j) => check(k, ["createdAt", "revokedAt"], `${at}.apiKeys[${j}]`, problems));
    acc.teamMembers?.forEach((m, j) => check(m, ["createdAt"], `${at}.teamMembers[${j}]`, problems));
    acc.limitRequests?.forEach((r, j) => check(r, ["createdAt", "decidedAt"], `${at}.limitRequests[${j}]`, problems));
    acc.extensions?.forEach((x, j) => {
      const xat = `${at}.extensions[${j}]`;
      check(x, ["createdAt", "updatedAt", "listedAt"], xat, problems);
      x.versions?.forEach((v, k) =>
        check(v, ["submittedAt", "approvedAt", "rejectedAt", "archivedAt"], `${xat}.versions[${k}]`, problems),
      );
      x.installCounters?.forEach((c, k) => check(c, ["firstInstalledAt"], `${xat}.installCounters[${k}]`, problems));
      x.secrets?.forEach((s, k) => check(s, ["createdAt", "updatedAt"], `${xat}.secrets[${k}]`, problems));
    });
  });
}
