/** API keys and team members of an account, as the control plane (the "dashboard") manages them. */
import type { Static } from "elysia";
import { SCOPES } from "../../../common/scopes";
import { MEMBER_ROLES, TEAM_MEMBER_ROLES } from "../../db/schema";
import { oneOf } from "../../schema/one-of";
import { integer, named, t } from "../../schema/schema";

const Timestamp = t.String({ format: "date-time", examples: ["2026-11-22T10:00:00.000Z"] });

export const ApiKeyName = t.String({ minLength: 1, maxLength: 100 });

export const CreateApiKeyBody = t.Object(
  {
    name: ApiKeyName,
    scopes: t.Array(oneOf(SCOPES), { minItems: 1, uniqueItems: true, description: "Permission scopes; * grants all" }),
  },
  { additionalProperties: false, ...named("ApiKeyCreate") },
);
export type CreateApiKeyInput = Static<typeof CreateApiKeyBody>;

export const ApiKey = t.Object(
  {
    id: t.String({ examples: ["key_01jd2x7k3m9q8r4t5v6w7x8y9z"] }),
    accountId: t.String(),
    name: t.String(),
    keyPrefix: t.String({ description: "First characters of the key, to recognise it; never the whole key" }),
    scopes: t.Array(t.String()),
    createdAt: Timestamp,
    revokedAt: t.Union([Timestamp, t.Null()]),
    lastUsedAt: t.Optional(
      t.Union([Timestamp, t.Null()], {
        description:
          "Last request it authenticated since the server started (kept in memory, wiped with the request log); in the key list only",
      }),
    ),
  },
  { additionalProperties: false, ...named("ApiKey") },
);
export type ApiKey = Static<typeof ApiKey>;

export const ApiKeyCreated = t.Object(
  { apiKey: ApiKey, plaintext: t.String({ description: "The key itself. Shown this once; only its hash is stored." }) },
  { additionalProperties: false, ...named("ApiKeyCreated") },
);
export const ApiKeyList = t.Object(
  { apiKeys: t.Array(ApiKey) },
  { additionalProperties: false, ...named("ApiKeyList") },
);

export { MEMBER_ROLES, TEAM_MEMBER_ROLES };

export const MemberEmail = t.String({
  minLength: 3,
  maxLength: 254,
  pattern: "^[^\\s@]+@[^\\s@]+$",
  description: "Unique within the account (case-insensitive)",
});

export const AddMemberBody = t.Object(
  {
    email: MemberEmail,
    role: oneOf(MEMBER_ROLES),
  },
  { additionalProperties: false, ...named("TeamMemberCreate") },
);
export type AddMemberInput = Static<typeof AddMemberBody>;

export const TeamMember = t.Object(
  { id: t.String(), accountId: t.String(), email: t.String(), role: t.String(), createdAt: Timestamp },
  { additionalProperties: false, ...named("TeamMember") },
);
export type TeamMember = Static<typeof TeamMember>;

export const TeamMemberList = t.Object(
  {
    members: t.Array(TeamMember),
    count: integer({ description: "Members counted against the cap, the owner included" }),
    max: integer(),
  },
  { additionalProperties: false, ...named("TeamMemberList") },
);

export const AccountParams = t.Object({ accountId: t.String({ description: "Account id (acc_…)" }) });
export const AccountKeyParams = t.Object({ accountId: t.String(), keyId: t.String() });
export const AccountMemberParams = t.Object({ accountId: t.String(), memberId: t.String() });

export const AccountSummary = t.Object(
  {
    id: t.String({ examples: ["acc_demo"] }),
    name: t.String(),
    createdAt: Timestamp,
    extensions: integer({ minimum: 0 }),
    activeApiKeys: integer({ minimum: 0 }),
  },
  { additionalProperties: false, ...named("AccountSummary") },
);
export type AccountSummary = Static<typeof AccountSummary>;
export const AccountList = t.Object(
  { accounts: t.Array(AccountSummary) },
  { additionalProperties: false, ...named("AccountList") },
);

export const DashboardKey = t.Object(
  {
    apiKey: ApiKey,
    plaintext: t.String({
      description: "The dashboard key itself (scope *), for the dashboard's calls to the developer API as this account",
    }),
    created: t.Boolean({ description: "True when this call created it" }),
  },
  { additionalProperties: false, ...named("DashboardKey") },
);
