/** Schemas of admin limit overrides (control plane). */
import type { Static } from "elysia";
import { LIMITS } from "../../../common/limits-catalog";
import { integer, named, t } from "../../schema/schema";

/**
 * The keys a limit-values map may have, said in the document (JSON Schema's `propertyNames`), so a client
 * typed from it refuses a misspelt key at compile time. The server checks them itself (checkLimitValues),
 * with a message that names the key and every problem of the body at once.
 */
export const LIMIT_KEY_NAMES = { propertyNames: { enum: LIMITS.map((l) => l.key) } };

export const LimitValues = t.Record(t.String(), integer({ minimum: 0 }), {
  description: 'Limit key → value, e.g. {"max_sounds_per_extension": 80}. Keys as in the limits catalog.',
  examples: [{ max_sounds_per_extension: 80 }],
  ...LIMIT_KEY_NAMES,
  // Said explicitly: Elysia closes a body schema that does not say, and the document must not depend on it.
  additionalProperties: false,
  ...named("LimitValues"),
});
export type LimitValues = Static<typeof LimitValues>;

/** The PUT body is the map itself; `{}` removes every override of the scope. */
export const OverridesBody = LimitValues;

export const OverridesView = t.Object(
  {
    scope: t.UnionEnum(["account", "extension"]),
    id: t.String({ description: "Account or extension id" }),
    overrides: LimitValues,
  },
  { additionalProperties: false, ...named("LimitOverrides") },
);
export type OverridesView = Static<typeof OverridesView>;
