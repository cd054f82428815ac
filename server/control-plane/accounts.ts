import { Elysia } from "elysia";
import { limitDefinition } from "../../common/limits-catalog";
import { apiAuth } from "../http/auth";
import {
  AccountKeyParams,
  AccountMemberParams,
  AccountParams,
  AddMemberBody,
  ApiKeyCreated,
  ApiKeyList,
  CreateApiKeyBody,
  TeamMember,
  TeamMemberList,
} from "../resources/accounts/model";
import type { AccountService } from "../resources/accounts/service";
import { t } from "../schema/schema";
import { controlRoute, NoContent, noContent } from "./route-kit";

/** The dashboard's Account → Security → API Keys page and the team page, as control-plane calls. */
export function accountRoutes(accounts: AccountService, lastUsedAt: (keyId: string) => string | null) {
  return new Elysia({ prefix: "/accounts/:accountId" })
    .use(apiAuth)
    .post(
      "/keys",
      ({ params, body, set }) => {
        set.status = 201;
        return accounts.createKey(params.accountId, body);
      },
      controlRoute("createApiKey", "Create a developer API key", {
        description: `The plaintext is in this response only. At most ${limitDefinition("max_api_keys").default} active keys per account (422 limit_exceeded).`,
        params: AccountParams,
        body: CreateApiKeyBody,
        answers: { 201: ApiKeyCreated },
        refusals: ["account_not_found", "limit_exceeded"],
      }),
    )
    .get(
      "/keys",
      ({ params }) => ({
        apiKeys: accounts.listKeys(params.accountId).map((k) => ({ ...k, lastUsedAt: lastUsedAt(k.id) })),
      }),
      controlRoute("listApiKeys", "List the account's API keys (prefix only, revoked ones included)", {
        params: AccountParams,
        answers: { 200: ApiKeyList },
        refusals: ["account_not_found"],
      }),
    )
    .delete(
      "/keys/:keyId",
      ({ params }) => {
        accounts.revokeKey(params.accountId, params.keyId);
        return noContent();
      },
      controlRoute("revokeApiKey", "Revoke an API key", {
        params: AccountKeyParams,
        answers: { 204: NoContent("Revoked; the key fails from the next request on") },
        refusals: ["account_not_found", "api_key_not_found"],
      }),
    )
    .post(
      "/members",
      ({ params, body, set }) => {
        set.status = 201;
        return { member: accounts.addMember(params.accountId, body) };
      },
      controlRoute("addTeamMember", "Add a team member", {
        description: "At most 10 members, the owner included (422 limit_exceeded).",
        params: AccountParams,
        body: AddMemberBody,
        answers: { 201: t.Object({ member: TeamMember }) },
        refusals: ["account_not_found", "member_exists", "limit_exceeded"],
      }),
    )
    .get(
      "/members",
      ({ params }) => accounts.listMembers(params.accountId),
      controlRoute("listTeamMembers", "List team members", {
        params: AccountParams,
        answers: { 200: TeamMemberList },
        refusals: ["account_not_found"],
      }),
    )
    .delete(
      "/members/:memberId",
      ({ params }) => {
        accounts.removeMember(params.accountId, params.memberId);
        return noContent();
      },
      controlRoute("removeTeamMember", "Remove a team member", {
        params: AccountMemberParams,
        answers: { 204: NoContent("Removed") },
        refusals: ["account_not_found", "member_not_found"],
      }),
    );
}
