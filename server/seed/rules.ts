/**
 * The API's own rules, run on every value of a fixture before anything is written: the same functions the
 * services call, so a fixture is refused for what the API refuses, with the API's message at the field's path.
 * What needs the database (caps, ownership, uniqueness) is checked by the loader, with the same functions.
 */
import { ApiError } from "../errors/api-error";
import type { FieldProblem } from "../errors/value-errors";
import { extensionName } from "../resources/extensions/writer";
import { checkLimitRequest } from "../resources/limit-requests/service";
import { checkLimitValues } from "../resources/limits/overrides";
import { checkSecretValue } from "../resources/secrets/service";
import { problemFromApiError } from "./fixture-error";
import type { Fixture } from "./model";

/** Runs an API rule; its refusal is added to `problems` instead of thrown. */
function rule(problems: FieldProblem[], at: string, check: () => unknown): void {
  try {
    check();
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    problems.push(problemFromApiError(e, at));
  }
}

function limitValues(values: Record<string, number> | undefined, at: string, problems: FieldProblem[]): void {
  for (const d of checkLimitValues(values ?? {}, at)) problems.push({ path: d.field!, message: d.message });
}

/** The API's rules on one account's values, `at` its path. */
export function checkApiRules(acc: Fixture["accounts"][number], at: string, problems: FieldProblem[]): void {
  limitValues(acc.overrides, `${at}.overrides`, problems);
  for (const [j, r] of (acc.limitRequests ?? []).entries())
    rule(problems, `${at}.limitRequests[${j}]`, () => checkLimitRequest(r));
  for (const [j, x] of (acc.extensions ?? []).entries()) {
    const xat = `${at}.extensions[${j}]`;
    rule(problems, xat, () => extensionName(x.name));
    limitValues(x.overrides, `${xat}.overrides`, problems);
    for (const [k, s] of (x.secrets ?? []).entries())
      if (s.value !== undefined) rule(problems, `${xat}.secrets[${k}]`, () => checkSecretValue(s.value!));
  }
}
