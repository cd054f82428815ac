/**
 * String lengths counted as the document states them: JSON Schema's `minLength`/`maxLength` count
 * characters (code points), TypeBox's check counts UTF-16 units — a name of 41 emoji would be refused
 * although the published schema allows 80. Each string schema with a length bound is given a kind of its
 * own ("Text"), whose check counts characters with the one counting function (client/text-length.ts) and
 * otherwise checks what TypeBox's string check would (pattern, format). Its JSON is unchanged, so the
 * document is too; a failed check is reported as TypeBox's own string error (`asStringError`), so every
 * translator of validation errors keeps its messages.
 */
import { FormatRegistry, Kind, type TSchema, TypeRegistry } from "@sinclair/typebox";
import { GetErrorFunction, type ValueError, ValueErrorType } from "@sinclair/typebox/errors";
import { characterCount } from "../../client/text-length";

export const TEXT_KIND = "Text";

interface TextSchema {
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
}

const patterns = new Map<string, RegExp>();
const patternOf = (source: string) => {
  let re = patterns.get(source);
  if (!re) patterns.set(source, (re = new RegExp(source)));
  return re;
};

/** What is wrong with `value` under a Text schema, as TypeBox's error type; null when nothing is. */
function textProblem(schema: TextSchema, value: unknown): ValueErrorType | null {
  if (typeof value !== "string") return ValueErrorType.String;
  // Characters are at most the UTF-16 units and at least half of them: count only when that leaves it open.
  const { minLength, maxLength } = schema;
  if (
    minLength !== undefined &&
    (value.length < minLength || (value.length < 2 * minLength && characterCount(value) < minLength))
  )
    return ValueErrorType.StringMinLength;
  if (maxLength !== undefined && value.length > maxLength && characterCount(value) > maxLength)
    return ValueErrorType.StringMaxLength;
  if (schema.pattern !== undefined && !patternOf(schema.pattern).test(value)) return ValueErrorType.StringPattern;
  if (schema.format !== undefined && !(FormatRegistry.Get(schema.format)?.(value) ?? false))
    return ValueErrorType.StringFormat;
  return null;
}

TypeRegistry.Set<TextSchema>(TEXT_KIND, (schema, value) => textProblem(schema, value) === null);

const CHILD_LISTS = ["anyOf", "allOf", "oneOf", "prefixItems"] as const;
const CHILD_MAPS = ["properties", "patternProperties", "$defs"] as const;
const CHILD_ONE = ["items", "additionalProperties", "not", "contains"] as const;

/** Every string schema under `schema` with a length bound counts characters from now on; returns `schema`. */
export function countingCharacters<S>(schema: S): S {
  const visit = (node: unknown) => {
    if (!node || typeof node !== "object") return;
    const record = node as Record<string | symbol, unknown>;
    if (record[Kind] === "String" && (record.minLength !== undefined || record.maxLength !== undefined))
      record[Kind] = TEXT_KIND;
    for (const key of CHILD_LISTS) if (Array.isArray(record[key])) for (const child of record[key]) visit(child);
    for (const key of CHILD_MAPS) {
      const map = record[key];
      if (map && typeof map === "object") for (const child of Object.values(map)) visit(child);
    }
    for (const key of CHILD_ONE) visit(record[key]);
  };
  visit(schema);
  return schema;
}

/** Every body, query and path schema of the app's routes, before the first request compiles a validator. */
export function countingCharactersInRoutes(routes: readonly { hooks: Record<string, unknown> }[]): void {
  for (const route of routes)
    for (const on of ["body", "query", "params"]) {
      const schema = route.hooks[on];
      if (schema && typeof schema === "object") countingCharacters(schema as TSchema);
    }
}

/** A failed Text check as the string error TypeBox would have given; any other error as it is. */
export function asStringError<E extends ValueError>(error: E): E {
  const schema = error.schema as TSchema & TextSchema;
  if (error.type !== ValueErrorType.Kind || schema?.[Kind] !== TEXT_KIND) return error;
  const type = textProblem(schema, error.value) ?? error.type;
  const message = GetErrorFunction()({ errorType: type, path: error.path, schema, value: error.value, errors: [] });
  return { ...error, type, message };
}
