/** The profile format's JSON Schema document (docs/profile.schema.json), derived from the one `t` schema. */
import { Profile } from "./model";

/** Drops the OpenAPI document's naming (`$id`) and the defaults-free enums' internals: plain JSON Schema. */
function plain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plain);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => k !== "$id")
      .map(([k, v]) => [k, plain(v)]),
  );
}

export function profileJsonSchema(): Record<string, unknown> {
  // JSON round-trip drops TypeBox's symbol keys.
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $id: "profile.schema.json",
    title: "ext platform profile",
    ...(plain(JSON.parse(JSON.stringify(Profile))) as Record<string, unknown>),
  };
}
