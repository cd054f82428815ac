/**
 * Every timestamp of a fixture, checked by the clock's own rule (server/base/clock.ts readStoredInstant): a calendar
 * instant inside the clock's range, written as the clock writes it. The schema's pattern only gives the shape;
 * 2026-13-45 and 2026-02-31 have it too.
 */
import { readStoredInstant } from "../base/clock";
import { errors } from "../errors/catalog";
import { type FixtureProblem, problemFromApiError } from "./fixture-error";
import type { Fixture } from "./model";

type Stamped = { [field: string]: unknown };

function check(entry: Stamped | undefined, fields: readonly string[], at: string, problems: FixtureProblem[]) {
  for (const field of fields) {
    const value = entry?.[field];
    if (typeof value !== "string") continue;
    const read = readStoredInstant(value);
    if (read.problem !== undefined) problems.push(problemFromApiError(errors.instantInvalid(field, read.problem), at));
  }
}

/** The fixture's own instants (its accounts' are checked one account at a time: checkAccountInstants). */
export function checkInstants(fixture: Fixture, problems: FixtureProblem[]): void {
  check(fixture, ["exportedAt"], "", problems);
  check(fixture.clock, ["now"], "clock", problems);
}

/** Every instant of one account, `at` its path. */
export function checkAccountInstants(acc: Fixture["accounts"][number], at: string, problems: FixtureProblem[]): void {
  check(acc, ["createdAt"], at, problems);
  for (const [j, k] of (acc.apiKeys ?? []).entries())
    check(k, ["createdAt", "revokedAt"], `${at}.apiKeys[${j}]`, problems);
  for (const [j, m] of (acc.teamMembers ?? []).entries()) check(m, ["createdAt"], `${at}.teamMembers[${j}]`, problems);
  for (const [j, r] of (acc.limitRequests ?? []).entries())
    check(r, ["createdAt", "decidedAt"], `${at}.limitRequests[${j}]`, problems);
  for (const [j, x] of (acc.extensions ?? []).entries()) {
    const xat = `${at}.extensions[${j}]`;
    check(x, ["createdAt", "updatedAt", "listedAt"], xat, problems);
    for (const [k, v] of (x.versions ?? []).entries())
      check(v, ["submittedAt", "approvedAt", "rejectedAt", "archivedAt"], `${xat}.versions[${k}]`, problems);
    for (const [k, c] of (x.installCounters ?? []).entries())
      check(c, ["firstInstalledAt"], `${xat}.installCounters[${k}]`, problems);
    for (const [k, s] of (x.secrets ?? []).entries())
      check(s, ["createdAt", "updatedAt"], `${xat}.secrets[${k}]`, problems);
  }
}
