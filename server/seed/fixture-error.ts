/** A fixture that cannot be loaded, and the API refusals that become one. */
import { ApiError } from "../errors/api-error";
import type { FieldProblem } from "../errors/value-errors";
import type { JsonSyntaxProblem } from "./json-syntax";

export type FixtureProblem = FieldProblem;

/**
 * A fixture that cannot be loaded: one line per bad field, or for a JSON syntax error the place
 * (`file:line:column`), the offending line and a caret.
 */
export class FixtureError extends Error {
  override name = "FixtureError";
  constructor(
    readonly problems: FixtureProblem[],
    source = "fixture",
    syntax?: JsonSyntaxProblem,
  ) {
    super(
      syntax
        ? `${source}:${syntax.line}:${syntax.column}: not valid JSON: ${syntax.message}\n${syntax.excerpt}`
        : `${source} is invalid:\n${problems.map((p) => `  - ${p.path}: ${p.message}`).join("\n")}`,
    );
  }
}

const VALIDATION_PREFIX = "Request failed validation: ";

/**
 * An API refusal as a fixture problem: the API's message (without the request's "Request failed validation"),
 * at `at`, or at `at` and the field the API names for a validation error ("reason", "limits.max_api_keys").
 */
export function problemFromApiError(e: ApiError, at: string): FixtureProblem {
  const field = e.code === "validation_error" ? e.details?.[0]?.field : undefined;
  const message = e.message.startsWith(VALIDATION_PREFIX) ? e.message.slice(VALIDATION_PREFIX.length) : e.message;
  return { path: field ? (at ? `${at}.${field}` : field) : at, message };
}

/** Runs an API rule for the fixture entry at `at`: its refusal is thrown as the fixture's problem there. */
export function apiRule<T>(at: string, check: () => T): T {
  try {
    return check();
  } catch (e) {
    if (e instanceof ApiError) throw new FixtureError([problemFromApiError(e, at)]);
    throw e;
  }
}
