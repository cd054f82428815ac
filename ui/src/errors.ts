/**
 * One sentence for a failed call: the API's status, code and message, once. The validator's own wording
 * ("Expected string length greater or equal to 1") is not shown: it names the field instead, since the
 * forms check the same rules first and say in words what is wrong.
 */
import { ApiCallError } from "./api";

const VALIDATOR_WORDING = /\bExpected\b|\bunion\b/;

export function describeError(e: unknown): string {
  if (!(e instanceof ApiCallError)) return e instanceof Error ? e.message : String(e);
  return `${e.status} ${e.code}: ${humanMessage(e)}`;
}

function humanMessage(e: ApiCallError): string {
  if (e.code !== "validation_error") return e.message;
  const text = e.message.replace(/^Request failed validation:\s*/, "");
  if (!VALIDATOR_WORDING.test(text)) return text;
  const fields = [...new Set(e.details.map((d) => d.field).filter((f): f is string => typeof f === "string"))];
  return fields.length > 0 ? `the API refused the value of ${fields.join(", ")}.` : "the API refused the values sent.";
}
