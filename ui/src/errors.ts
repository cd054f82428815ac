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

/**
 * How many of a refusal's details a page lists, and how long one line may be: above what this server sends
 * (its first 100 problems and a line saying there are more), a bound should any answer hold more.
 */
export const DETAILS_SHOWN = 200;
const DETAIL_CHARS = 300;

/**
 * Each problem of a refusal that names several (a fixture's every bad field, as `ext seed` lists them), one
 * line each: `accounts[0].name: …`. None for a refusal with one problem, which its message already says.
 */
export function errorDetails(e: unknown): string[] {
  if (!(e instanceof ApiCallError) || e.details.length < 2) return [];
  const lines = e.details.slice(0, DETAILS_SHOWN).map((d) => {
    const where = d.path ?? d.field;
    const line = `${typeof where === "string" && where ? `${where}: ` : ""}${d.message}`;
    return line.length > DETAIL_CHARS ? `${line.slice(0, DETAIL_CHARS)}…` : line;
  });
  const rest = e.details.length - lines.length;
  return rest > 0 ? [...lines, `…and ${rest} more`] : lines;
}
