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
import { characterCount } from "../../common/text/text-length";

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

/** A string schema with a length bound counts characters from now on (its kind becomes Text); any other is left. */
export function countingCharacters(node: Record<string | symbol, unknown>): void {
  if (node[Kind] === "String" && (node.minLength !== undefined || node.maxLength !== undefined)) node[Kind] = TEXT_KIND;
}

/** A failed Text check as the string error TypeBox would have given; any other error as it is. */
export function asStringError<E extends ValueError>(error: E): E {
  const schema = error.schema as TSchema & TextSchema;
  if (error.type !== ValueErrorType.Kind || schema?.[Kind] !== TEXT_KIND) return error;
  const type = textProblem(schema, error.value) ?? error.type;
  const message = GetErrorFunction()({ errorType: type, path: error.path, schema, value: error.value, errors: [] });
  return { ...error, type, message };
}
