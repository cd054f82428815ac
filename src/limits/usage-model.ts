/** Schemas of the developer limits page (control plane): every limit of a scope with its usage. */
import { t, type Static } from "elysia";

export const LimitUsageRow = t.Object(
  {
    key: t.String(),
    category: t.String(),
    description: t.String(),
    unit: t.String(),
    value: t.Integer(),
    source: t.UnionEnum(["extension_override", "developer_override", "platform_default"]),
    default: t.Integer(),
    hardMax: t.Union([t.Integer(), t.Null()]),
    usage: t.Union([t.Integer(), t.Null()], { description: "Current use, where the emulator counts it; null otherwise" }),
  },
  { additionalProperties: false, title: "LimitUsageRow" },
);
export const LimitUsage = t.Object(
  {
    accountId: t.String(),
    extensionId: t.Union([t.String(), t.Null()]),
    limits: t.Array(LimitUsageRow),
  },
  { additionalProperties: false, title: "LimitUsage" },
);
export type LimitUsage = Static<typeof LimitUsage>;
export const LimitUsageQuery = t.Object(
  { accountId: t.String({ description: "Account id" }), extensionId: t.Optional(t.String({ description: "One of its extensions; absent: the account scope" })) },
  { additionalProperties: false },
);
