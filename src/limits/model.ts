/** The limits endpoint's body: the whole catalogue resolved for one extension, plus usage. */
import { t, type Static } from "elysia";
import { LIMITS } from "./catalog";

const Source = t.UnionEnum(["extension_override", "developer_override", "platform_default"], {
  description: "Where the value comes from, in the spec's priority: per-extension override, per-developer override, platform default",
});

export const ResolvedLimitView = t.Object(
  {
    value: t.Integer({ description: "The value in force for this extension" }),
    source: Source,
    default: t.Integer({ description: "Platform default" }),
    hardMax: t.Union([t.Integer(), t.Null()], { description: "Cannot be raised past this on any plan; null when the spec gives none" }),
    unit: t.String(),
    description: t.String(),
    overrideKey: t.String({ description: "Key an admin override uses" }),
  },
  { additionalProperties: false },
);
export type ResolvedLimitView = Static<typeof ResolvedLimitView>;

const CATEGORIES = [...new Set(LIMITS.map((l) => l.category))];
const byCategory = Object.fromEntries(
  CATEGORIES.map((c) => [c, t.Record(t.String(), ResolvedLimitView, { description: `${c} limits, keyed by limit key` })]),
) as Record<(typeof LIMITS)[number]["category"], ReturnType<typeof t.Record<ReturnType<typeof t.String>, typeof ResolvedLimitView>>>;

export const LimitsResponse = t.Object(
  {
    extensionId: t.String(),
    sounds: t.Object(
      {
        resolvedLimit: t.Integer({ description: "Sounds allowed per deploy of this extension" }),
        source: Source,
        maxInManifest: t.Integer(),
        fileBytes: t.Integer(),
        warningBytes: t.Integer(),
        formats: t.Array(t.String()),
      },
      { additionalProperties: false, description: "What the deploy tool checks before uploading" },
    ),
    limits: t.Object(byCategory, { additionalProperties: false }),
    usage: t.Object(
      {
        extensions: t.Integer({ description: "Extensions of the account" }),
        versions: t.Integer({ description: "Versions of this extension, archived ones excluded" }),
        archivedVersions: t.Integer(),
        secrets: t.Integer({ description: "Secrets of this extension" }),
        apiKeys: t.Integer({ description: "Active API keys of the account" }),
        teamMembers: t.Integer({ description: "Team members of the account, the owner included (as max_team_members counts them)" }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, title: "ExtensionLimits" },
);
export type LimitsResponse = Static<typeof LimitsResponse>;
