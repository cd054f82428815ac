/** Judging one answer against the spec's tables: each function returns its problems as lines of text. */
import { CODE_OF_STATUS, type FieldTable, type Kind, SPEC_CODE_WORDS } from "./spec";

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** ISO 8601 UTC, as a real instant (a regex alone lets 2026-02-31 through). */
export function isUtcTimestamp(v: unknown): boolean {
  if (typeof v !== "string" || !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?Z$/.test(v)) return false;
  const ms = Date.parse(v);
  if (Number.isNaN(ms)) return false;
  return new Date(ms).toISOString().slice(0, 19) === v.slice(0, 19);
}

function kindOk(kind: Kind, v: unknown): boolean {
  switch (kind) {
    case "string":
      return typeof v === "string";
    case "nullable-string":
      return v === null || typeof v === "string";
    case "integer":
      return Number.isInteger(v);
    case "timestamp":
      return isUtcTimestamp(v);
    case "object":
      return isObject(v);
    case "string-array":
      return Array.isArray(v) && v.every((x) => typeof x === "string");
  }
}

const show = (v: unknown) => (v === undefined ? "nothing" : JSON.stringify(v));

/** A body by its top-level fields, for "should be {keys: […]}, got {names}". */
export function topLevel(v: unknown): string {
  return isObject(v) ? `{${Object.keys(v).join(", ")}}` : show(v);
}

/** Exactly the fields of `table` (plus any of `optional`), each of its kind. */
export function fieldProblems(where: string, value: unknown, table: FieldTable, optional: FieldTable = {}): string[] {
  if (!isObject(value)) return [`${where}: expected an object, got ${show(value)}`];
  const out: string[] = [];
  for (const [name, kind] of Object.entries(table)) {
    if (!(name in value)) out.push(`${where}: field ${name} is missing: the spec's answer carries it (${kind})`);
    else if (!kindOk(kind, value[name])) out.push(`${where}: ${name} should be ${kind}, got ${show(value[name])}`);
  }
  for (const name of Object.keys(value)) {
    if (name in table) continue;
    const kind = optional[name];
    if (!kind) out.push(`${where}: field ${name} is not in the spec's field set: the spec's answer has no ${name}`);
    else if (!kindOk(kind, value[name])) out.push(`${where}: ${name} should be ${kind}, got ${show(value[name])}`);
  }
  return out;
}

/** §7: `{error:{code,message,status}}` with status equal to the HTTP status, and the code of that status. */
export function envelopeProblems(status: number, body: unknown, code?: string): string[] {
  const error = isObject(body) ? body.error : undefined;
  if (!isObject(error)) return [`not the error envelope {error:{code,message,status}}: got ${show(body)}`];
  const out: string[] = [];
  if (typeof error.code !== "string") out.push(`error.code should be a string, got ${show(error.code)}`);
  if (typeof error.message !== "string") out.push(`error.message should be a string, got ${show(error.message)}`);
  if (error.status !== status)
    out.push(`error.status should be ${status} (the HTTP status), got ${show(error.status)}`);
  if (typeof error.code === "string") {
    if (code !== undefined && error.code !== code) out.push(`error.code should be ${code}, got ${error.code}`);
    const pattern = CODE_OF_STATUS[status];
    if (code === undefined && pattern && !pattern.test(error.code))
      out.push(
        `error.code ${error.code} is not the spec's code for ${status}: the spec's is ${SPEC_CODE_WORDS[status]}`,
      );
  }
  return out;
}

export function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}
