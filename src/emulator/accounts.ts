import { Elysia, t } from "elysia";
import { AccountKeyParams, AccountMemberParams, AccountParams, AddMemberBody, ApiKeyCreated, ApiKeyList, CreateApiKeyBody, TeamMember, TeamMemberList } from "../accounts/model";
import type { AccountService } from "../accounts/service";
import { apiAuth } from "../http/auth";
import { controlErrors, noContent, security, tags } from "./route-kit";

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
      {
        json: true,
        params: AccountParams,
        body: CreateApiKeyBody,
        response: { 201: ApiKeyCreated, ...controlErrors(404, 415, 422) },
        detail: {
          tags,
          security,
          summary: "Create a developer API key",
          description: "The plaintext is in this response only. At most 20 active keys per account (422 limit_exceeded).",
        },
      },
    )
    .get("/keys", ({ params }) => ({ apiKeys: accounts.listKeys(params.accountId).map((k) => ({ ...k, lastUsedAt: lastUsedAt(k.id) })) }), {
      params: AccountParams,
      response: { 200: ApiKeyList, ...controlErrors(404) },
      detail: { tags, security, summary: "List the account's API keys (prefix only, revoked ones included)" },
    })
    .delete(
      "/keys/:keyId",
      ({ params }) => {
        accounts.revokeKey(params.accountId, params.keyId);
        return noContent();
      },
      {
        params: AccountKeyParams,
        response: { 204: t.Void({ description: "Revoked; the key fails from the next request on" }), ...controlErrors(404) },
        detail: { tags, security, summary: "Revoke an API key" },
      },
    )
    .post(
      "/members",
      ({ params, body, set }) => {
        set.status = 201;
        return { member: accounts.addMember(params.accountId, body) };
      },
      {
        json: true,
        params: AccountParams,
        body: AddMemberBody,
        response: { 201: t.Object({ member: TeamMember }), ...controlErrors(404, 409, 415, 422) },
        detail: { tags, security, summary: "Add a team member", description: "At most 10 members, the owner included (422 limit_exceeded)." },
      },
    )
    .get("/members", ({ params }) => accounts.listMembers(params.accountId), {
      params: AccountParams,
      response: { 200: TeamMemberList, ...controlErrors(404) },
      detail: { tags, security, summary: "List team members" },
    })
    .delete(
      "/members/:memberId",
      ({ params }) => {
        accounts.removeMember(params.accountId, params.memberId);
        return noContent();
      },
      {
        params: AccountMemberParams,
        response: { 204: t.Void({ description: "Removed" }), ...controlErrors(404) },
        detail: { tags, security, summary: "Remove a team member" },
      },
    );
}
