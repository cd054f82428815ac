/** manifest.json's JSON Schema document (docs/manifest.schema.json), derived from the one `t` schema. */
import { Manifest } from "./manifest";

export function manifestJsonSchema(): Record<string, unknown> {
  // JSON round-trip drops TypeBox's symbol keys, leaving plain JSON Schema.
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $id: "manifest.schema.json",
    ...JSON.parse(JSON.stringify(Manifest)),
  };
}
