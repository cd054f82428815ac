/**
 * A form's check before it sends: the API's own rules for the body's fields (field-rules.generated.ts, taken
 * from the OpenAPI document), one human sentence per field. A form that passes is one the API's validator
 * accepts, so no doomed request is sent.
 */
import { FIELD_RULES } from "./field-rules.generated";

export interface FieldRule {
  required: boolean;
  type?: string;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
}
export type FieldRules = Record<string, FieldRule>;

/** A body schema's rules by name (e.g. "ApiKeyCreate"); unknown names have none. */
export const rulesOf = (schema: string): FieldRules => (FIELD_RULES as Record<string, FieldRules>)[schema] ?? {};

/** What a pattern means, in words, where the bare expression would not tell a person anything. */
const PATTERN_WORDS: Record<string, string> = {
  "\\S": "must not be blank",
  "^[a-z][a-z0-9_]*$": "must start with a lower-case letter, then lower-case letters, digits or _",
  "^[^\\s@]+@[^\\s@]+$": "must be an email address",
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
    if (!Number.isFinite(n) || (rule.type === "integer" && !Number.isInteger(n)))
      return `${label} must be a whole number.`;
    if (rule.minimum !== undefined && n < rule.minimum) return `${label} must be at least ${rule.minimum}.`;
    if (rule.maximum !== undefined && n > rule.maximum) return `${label} must be at most ${rule.maximum}.`;
    return null;
  }
  if (rule.minLength !== undefined && text.length < rule.minLength)
    return `${label} needs at least ${rule.minLength} characters (${text.length} now).`;
  if (rule.maxLength !== undefined && text.length > rule.maxLength)
    return `${label} can have at most ${rule.maxLength} characters (${text.length} now).`;
  if (rule.pattern !== undefined && !new RegExp(rule.pattern, "u").test(value))
    return `${label} ${PATTERN_WORDS[rule.pattern] ?? "is not in the expected form"}.`;
  return null;
}

/** Every field's problem: `fields` maps a body field to its label and current value. */
export function checkFields(
  schema: string,
  fields: Record<string, { label: string; value: string; id?: string }>,
): Record<string, string> {
  const rules = rulesOf(schema);
  const problems: Record<string, string> = {};
  for (const [name, { label, value }] of Object.entries(fields)) {
    const problem = checkField(rules[name], label, value);
    if (problem) problems[name] = problem;
  }
  return problems;
}
