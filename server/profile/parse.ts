/**
 * A profile's text → a Profile, or a ProfileError saying where it is wrong (the entry and its field), in the
 * fixture errors' words. Each entry is checked against the schema of its own `difference`, so a hand-edited
 * entry is told "observed is required", not "expected a union value".
 */
import type { TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { parseJsonText } from "../../common/json/json-reader";
import { problemOf } from "../errors/value-errors";
import { t } from "../schema/schema";
import { ProfileError } from "./compile";
import { DIFFERENCES, PROFILE_ENTRIES_MAX, PROFILE_VERSION, Profile, ProfileEntry } from "./model";

/** Each kind's schema, by `difference` (error-field by its field too: a status is a number, a code a string). */
const VARIANTS = new Map<string, TSchema>(
  (ProfileEntry.anyOf as TSchema[]).map((s) => {
    const p = s.properties as { difference: { const: string }; field?: { const?: string } };
    return [p.difference.const + (p.field?.const === "status" ? "/status" : ""), s];
  }),
);
// The document without its entries' variants: each entry is then checked against its own kind's schema.
const TOP = t.Object(
  { ...Profile.properties, entries: t.Array(t.Unknown(), { maxItems: PROFILE_ENTRIES_MAX }) },
  { additionalProperties: false },
);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function firstProblem(schema: TSchema, value: unknown, prefix: string): string | null {
  const first = Value.Errors(schema, value).First();
  if (!first) return null;
  const { path, message } = problemOf(first, (pointer) =>
    (prefix + pointer.replace(/\//g, ".").replace(/\.(\d+)/g, "[$1]")).replace(/^\./, ""),
  );
  const field = path.split(/[.[]/).filter(Boolean).at(-1) ?? "";
  return message.includes(`\`${field}\``) ? message : `${path || "the profile"}: ${message}`;
}

/** A real ISO 8601 UTC instant (a regex lets 2026-02-31 through). */
function isInstant(s: string): boolean {
  const ms = Date.parse(s);
  return (
    /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,3})?Z$/.test(s) &&
    !Number.isNaN(ms) &&
    new Date(ms).toISOString().slice(0, 19) === s.slice(0, 19)
  );
}

/** Checks a parsed value as a profile document. */
export function checkProfile(value: unknown): Profile {
  if (!isObject(value)) throw new ProfileError('a profile is a JSON object: {"profileVersion": 1, "entries": [...]}');
  if (value.profileVersion !== PROFILE_VERSION)
    throw new ProfileError(
      typeof value.profileVersion === "number" && value.profileVersion > PROFILE_VERSION
        ? `profileVersion ${value.profileVersion} is newer than this ext reads (${PROFILE_VERSION}): update ext`
        : `profileVersion must be ${PROFILE_VERSION}`,
    );
  const top = firstProblem(TOP, value, "");
  if (top) throw new ProfileError(top);
  if (typeof value.observedAt === "string" && !isInstant(value.observedAt))
    throw new ProfileError("observedAt: must be an ISO 8601 UTC instant, e.g. 2026-11-22T10:00:00.000Z");
  const entries = value.entries as unknown[];
  entries.forEach((entry, i) => {
    const n = i + 1;
    const at = `entry ${n}`;
    if (!isObject(entry)) throw new ProfileError(`${at}: an entry is an object`, n);
    const variant = VARIANTS.get(String(entry.difference) + (entry.field === "status" ? "/status" : ""));
    if (!variant)
      throw new ProfileError(
        `${at}: difference must be one of ${DIFFERENCES.join(", ")}${entry.difference === undefined ? " (it is missing)" : ""}`,
        n,
      );
    if (typeof entry.answer === "string" && entry.answer !== "success" && entry.answer !== "error")
      throw new ProfileError(`${at}: answer must be a status ext answers with (200 to 599), "success" or "error"`, n);
    const problem = firstProblem(variant, entry, "");
    if (problem) throw new ProfileError(`${at}: ${problem}`, n);
    const at2 = (entry.evidence as { at?: unknown } | undefined)?.at;
    if (typeof at2 === "string" && !isInstant(at2))
      throw new ProfileError(`${at}: evidence.at must be an ISO 8601 UTC instant`, n);
  });
  return value as Profile;
}

/** A profile's text, parsed with the JSON reader's nesting cap, then checked. */
export function parseProfile(text: string): Profile {
  let value: unknown;
  try {
    value = parseJsonText(text);
  } catch (e) {
    throw new ProfileError(`not JSON: ${(e as Error).message}`);
  }
  return checkProfile(value);
}
