/**
 * A form's check before it sends: the API's own rules for the body's fields (field-rules.generated.ts, taken
 * from the OpenAPI document), one human sentence per field. A form that passes is one the API's validator
 * accepts, so no doomed request is sent.
 */
import { characterCount } from "../../common/text/text-length";
import { FIELD_RULES } from "./field-rules.generated";

export interface FieldRule {
  required: boolean;
  type?: string;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
}
export type FieldRules = Record<string, FieldRule>;

/**
 * A body schema's rules by name (e.g. "ApiKeyCreate"; a form's path parameters as "PUT /path/{key} params");
 * unknown names have none. A map whose keys are free (LimitValues) has its one value rule under "*".
 */
export const rulesOf = (schema: string): FieldRules => (FIELD_RULES as Record<string, FieldRules>)[schema] ?? {};

/** What a pattern means, in words, where the bare expression would not tell a person anything. */
const PATTERN_WORDS: Record<string, string> = {
  "\\S": "must not be blank",
  "^[a-z][a-z0-9_]*$": "must start with a lower-case letter, then lower-case letters, digits or _",
  "^[^\\s@]+@[^\\s@]+$": "must be an email address",
  "^[A-Za-z_][A-Za-z0-9_]{0,127}$":
    "must start with a letter or _, then letters, digits or _ only (no spaces or dashes), 128 characters at most",
  "^[A-Za-z0-9_-]{1,64}$": "may hold only letters, digits, _ and -, 64 characters at most",
};

/** The date-time form the API's validator takes (RFC 3339, with a zone), checked as a real instant too. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:?\d{2})$/;
const FORMAT_WORDS: Record<string, [(text: string) => boolean, string]> = {
  "date-time": [
    (text) => DATE_TIME.test(text) && !Number.isNaN(Date.parse(text)),
    "must be a date and time with its zone, like 2030-01-01T00:00:00Z",
  ],
};

/**
 * The first problem of `value` under `rule`, as a sentence starting with `label`; null when it passes.
 * Text is counted after trimming, as the API counts names and reasons.
 */
export function checkField(rule: FieldRule | undefined, label: string, value: string): string | null {
  if (!rule) return null;
  const text = value.trim();
  if (text === "") return rule.required ? `${label} is required.` : null;
  if (rule.type === "integer" || rule.type === "number") {
    const n = Number(text);
    if (!Number.isFinite(n)) return `${label} must be a ${rule.type === "integer" ? "whole number" : "number"}.`;
    if (rule.type === "integer" && !Number.isInteger(n)) return `${label} must be a whole number.`;
    if (rule.minimum !== undefined && n < rule.minimum) return `${label} must be at least ${rule.minimum}.`;
    if (rule.maximum !== undefined && n > rule.maximum) return `${label} must be at most ${rule.maximum}.`;
    return null;
  }
  // Characters as the document counts them (code points): an emoji is one.
  const length = characterCount(text);
  if (rule.minLength !== undefined && length < rule.minLength)
    return `${label} needs at least ${rule.minLength} characters (${length} now).`;
  if (rule.maxLength !== undefined && length > rule.maxLength)
    return `${label} can have at most ${rule.maxLength} characters (${length} now).`;
  if (rule.pattern !== undefined && !new RegExp(rule.pattern, "u").test(value))
    return `${label} ${PATTERN_WORDS[rule.pattern] ?? "is not in the expected form"}.`;
  const format = rule.format === undefined ? undefined : FORMAT_WORDS[rule.format];
  if (format && !format[0](text)) return `${label} ${format[1]}.`;
  return null;
}

/**
 * A form field: its label and current value; `schema` when its rule is another schema's (a path parameter),
 * `required` where the form, not the schema, makes it so (one branch of a oneOf is the one this form sends).
 */
export interface FieldInput {
  label: string;
  value: string;
  id?: string;
  schema?: string;
  required?: boolean;
}

/** Every field's problem: `fields` maps a body field to its label and current value. */
export function checkFields(schema: string, fields: Record<string, FieldInput>): Record<string, string> {
  const problems: Record<string, string> = {};
  for (const [name, { label, value, schema: own, required }] of Object.entries(fields)) {
    const rules = rulesOf(own ?? schema);
    const rule = rules[name] ?? rules["*"];
    const problem = checkField(rule && required !== undefined ? { ...rule, required } : rule, label, value);
    if (problem) problems[name] = problem;
  }
  return problems;
}
