/** The limits endpoint's body: the whole catalogue resolved for one extension, plus usage. */
import type { Static } from "elysia";
import { LIMITS } from "../../../common/limits-catalog";
import { integer, named, t } from "../../schema/schema";

const Source = t.UnionEnum(["extension_override", "developer_override", "platform_default"], {
  description:
    "Where the value comes from, in the spec's priority: per-extension override, per-developer override, platform default",
  ...named("LimitSource"),
});

export const ResolvedLimitView = t.Object(
  {
    value: integer({ minimum: 0, description: "The value in force for this extension" }),
    source: Source,
    default: integer({ minimum: 0, description: "Platform default" }),
    hardMax: t.Union([integer({ minimum: 0 }), t.Null()], {
      description: "Cannot be raised past this on any plan; null when the spec gives none",
    }),
    unit: t.String(),
    description: t.String(),
    overrideKey: t.String({ description: "Key an admin override uses" }),
  },
  { additionalProperties: false, ...named("ResolvedLimit") },
);
export type ResolvedLimitView = Static<typeof ResolvedLimitView>;

const CATEGORIES = [...new Set(LIMITS.map((l) => l.category))];
const byCategory = Object.fromEntries(
  CATEGORIES.map((c) => [
    c,
    t.Record(t.String(), ResolvedLimitView, { description: `${c} limits, keyed by limit key` }),
  ]),
) as Record<
  (typeof LIMITS)[number]["category"],
  ReturnType<typeof t.Record<ReturnType<typeof t.String>, typeof ResolvedLimitView>>
>;

export const LimitsResponse = t.Object(
  {
    extensionId: t.String(),
    sounds: t.Object(
      {
        resolvedLimit: integer({ minimum: 0, description: "Sounds allowed per deploy of this extension" }),
        source: Source,
        maxInManifest: integer({ minimum: 0 }),
        fileBytes: integer({ minimum: 0 }),
        warningBytes: integer({ minimum: 0 }),
        formats: t.Array(t.String()),
      },
      {
        additionalProperties: false,
        description: "What the deploy tool checks before uploading",
        ...named("SoundLimits"),
      },
    ),
    limits: t.Object(byCategory, { additionalProperties: false }),
    usage: t.Object(
      {
        extensions: integer({ minimum: 0, description: "Extensions of the account" }),
        versions: integer({ minimum: 0, description: "Versions of this extension, archived ones excluded" }),
        archivedVersions: integer({ minimum: 0 }),
        secrets: integer({ minimum: 0, description: "Secrets of this extension" }),
        apiKeys: integer({ minimum: 0, description: "Active API keys of the account" }),
        teamMembers: integer({
          minimum: 0,
          description: "Team members of the account, the owner included (as max_team_members counts them)",
        }),
      },
      { additionalProperties: false, description: "Current usage counted against the limits", ...named("LimitUsage") },
    ),
  },
  { additionalProperties: false, ...named("Limits") },
);
export type LimitsResponse = Static<typeof LimitsResponse>;
