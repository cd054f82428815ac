/** Schemas of the developer limits page (control plane): every limit of a scope with its usage. */
import type { Static } from "elysia";
import { integer, named, t } from "../../schema/schema";

export const LimitUsageRow = t.Object(
  {
    key: t.String(),
    category: t.String(),
    description: t.String(),
    unit: t.String(),
    value: integer(),
    source: t.UnionEnum(["extension_override", "developer_override", "platform_default"]),
    default: integer(),
    hardMax: t.Union([integer(), t.Null()]),
    usage: t.Union([integer(), t.Null()], { description: "Current use, where the emulator counts it; null otherwise" }),
  },
  { additionalProperties: false, ...named("ScopeLimitUsageRow") },
);
/** One rate-limit group of spec §8: per account, the same for every scope (no override raises it). */
export const RateLimitRow = t.Object(
  {
    group: t.String({ description: "The group's key, e.g. get or create_extension" }),
    label: t.String({ description: "Which requests it counts, e.g. GET endpoints" }),
    limit: integer({ description: "Requests allowed per period" }),
    periodSeconds: integer(),
  },
  { additionalProperties: false, ...named("RateLimitRow") },
);
export const LimitUsage = t.Object(
  {
    accountId: t.String(),
    extensionId: t.Union([t.String(), t.Null()]),
    limits: t.Array(LimitUsageRow),
    rateLimits: t.Array(RateLimitRow, { description: "The API rate limits of the account's keys" }),
  },
  { additionalProperties: false, ...named("ScopeLimitUsage") },
);
export type LimitUsage = Static<typeof LimitUsage>;
export const LimitUsageQuery = t.Object(
  {
    accountId: t.String({ description: "Account id" }),
    extensionId: t.Optional(t.String({ description: "One of its extensions; absent: the account scope" })),
  },
  { additionalProperties: false },
);
