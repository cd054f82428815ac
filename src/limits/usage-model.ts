/** Schemas of the developer limits page (control plane): every limit of a scope with its usage. */
import { type Static, t } from "elysia";
import { integer, named } from "../http/schema";

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
export const LimitUsage = t.Object(
  {
    accountId: t.String(),
    extensionId: t.Union([t.String(), t.Null()]),
    limits: t.Array(LimitUsageRow),
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
