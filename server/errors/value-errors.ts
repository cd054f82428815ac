/**
 * The one translator of TypeBox's value errors into words a person can act on, for request bodies and
 * fixtures alike: the field and what is wrong with it. TypeBox's own wording ("Expected required property",
 * "Expected union value") names neither. Fixture paths are written `accounts[0].apiKeys[1].name`, request
 * fields `scopes.0`. Messages come from the path and the schema, never from the value (a body holds secret
 * values, a fixture plaintext keys).
 */
import { type ValueError, ValueErrorType } from "@sinclair/typebox/errors";

/** One bad field: where and what. */
export interface FieldProblem {
  path: string;
  message: string;
}

/** "/accounts/0/apiKeys/1/scopes" → "accounts[0].apiKeys[1].scopes" */
export function pointerToPath(pointer: string): string {
  return (
    pointer
      .split("/")
      .filter(Boolean)
      .map((seg, i) => (/^\d+$/.test(seg) ? `[${seg}]` : i === 0 ? seg : `.${seg}`))
      .join("") || "(root)"
  );
}

interface SchemaLike {
  type?: string;
  enum?: unknown[];
  anyOf?: SchemaLike[];
  const?: unknown;
  minimum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  description?: string;
  properties?: Record<string, unknown>;
}

const lastField = (path: string) => /([A-Za-z0-9_$-]+)(\[\d+\]|\.\d+)*$/.exec(path)?.[1] ?? path;
const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;

/** A whole number's bounds, from an integer schema or a union holding one (a number or numeric string). */
function wholeNumber(schema: SchemaLike): string {
  const integer = schema.type === "integer" ? schema : schema.anyOf?.find((s) => s.type === "integer");
  const min = integer?.minimum ?? schema.minimum;
  return min === undefined ? "must be a whole number" : `must be a whole number, ${min} or more`;
}

/** What is wrong with a value, in words; `path` as `pathOf` writes it (a fixture's by default). */
export function problemOf(e: ValueError, pathOf: (pointer: string) => string = pointerToPath): FieldProblem {
  const path = pathOf(e.path);
  const schema = (e.schema ?? {}) as SchemaLike;
  const field = lastField(path);
  const message = ((): string => {
    switch (e.type) {
      case ValueErrorType.ObjectRequiredProperty:
        return `\`${field}\` is required`;
      case ValueErrorType.ObjectAdditionalProperties: {
        const allowed = Object.keys(schema.properties ?? {});
        return `unknown field \`${field}\`${allowed.length ? `; the fields here are ${allowed.join(", ")}` : ""}`;
      }
      case ValueErrorType.Kind:
      case ValueErrorType.Literal:
        if (Array.isArray(schema.enum)) return `must be one of ${schema.enum.join(", ")}`;
        break;
      case ValueErrorType.Array:
        return "must be a list ([…])";
      case ValueErrorType.Object:
        return "must be an object ({…})";
      case ValueErrorType.String:
        return "must be a string in double quotes";
      case ValueErrorType.StringMinLength:
        return schema.minLength === 1
          ? "must not be empty"
          : `must be at least ${plural(schema.minLength ?? 0, "character")}`;
      case ValueErrorType.StringMaxLength:
        return `must be at most ${plural(schema.maxLength ?? 0, "character")}`;
      case ValueErrorType.StringPattern:
        return schema.description
          ? `must be ${asPhrase(schema.description)}`
          : "has characters that are not allowed here";
      case ValueErrorType.Integer:
      case ValueErrorType.IntegerMinimum:
      case ValueErrorType.Number:
      case ValueErrorType.NumberMinimum:
        return wholeNumber(schema);
      case ValueErrorType.Union: {
        if (schema.anyOf?.some((s) => s.type === "integer")) return wholeNumber(schema);
        // A union of literals (server/schema/one-of.ts) is an enum without a default.
        const literals = schema.anyOf?.map((s) => s.const);
        if (literals?.length && literals.every((v) => typeof v === "string"))
          return `must be one of ${literals.join(", ")}`;
        break;
      }
      case ValueErrorType.ArrayMinItems:
        return `must list at least ${plural(schema.minItems ?? 1, "item")}`;
      case ValueErrorType.ArrayUniqueItems:
        return "lists the same value twice";
      case ValueErrorType.Boolean:
        return "must be true or false";
    }
    return e.message;
  })();
  return { path, message };
}

/** A description as the end of a sentence: its first letter lowercased, unless it starts an acronym ("ISO 8601…"). */
function asPhrase(description: string): string {
  return /^[A-Z][a-z]/.test(description) ? description.charAt(0).toLowerCase() + description.slice(1) : description;
}
