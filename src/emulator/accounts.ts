import { Elysia } from "elysia";
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
} from "../accounts/model";
import type { AccountService } from "../accounts/service";
import { apiAuth } from "../http/auth";
import { t } from "../http/schema";
import { limitDefinition } from "../limits/catalog";
import { controlResponses, NoContent, noContent, security, tags } from "./route-kit";

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
        response: controlResponses(
          { 201: ApiKeyCreated },
          "malformed_path",
          "account_not_found",
          "unsupported_media_type",
          "payload_too_large",
          "validation_error",
          "limit_exceeded",
        ),
        detail: {
          tags,
          security,
          operationId: "createApiKey",
          summary: "Create a developer API key",
          description: `The plaintext is in this response only. At most ${limitDefinition("max_api_keys").default} active keys per account (422 limit_exceeded).`,
        },
      },
    )
    .get(
      "/keys",
      ({ params }) => ({
        apiKeys: accounts.listKeys(params.accountId).map((k) => ({ ...k, lastUsedAt: lastUsedAt(k.id) })),
      }),
      {
        params: AccountParams,
        response: controlResponses({ 200: ApiKeyList }, "malformed_path", "account_not_found"),
        detail: {
          tags,
          security,
          operationId: "listApiKeys",
          summary: "List the account's API keys (prefix only, revoked ones included)",
        },
      },
    )
    .delete(
      "/keys/:keyId",
      ({ params }) => {
        accounts.revokeKey(params.accountId, params.keyId);
        return noContent();
      },
      {
        params: AccountKeyParams,
        response: controlResponses(
          { 204: NoContent("Revoked; the key fails from the next request on") },
          "malformed_path",
          "account_not_found",
          "api_key_not_found",
        ),
        detail: { tags, security, operationId: "revokeApiKey", summary: "Revoke an API key" },
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
        response: controlResponses(
          { 201: t.Object({ member: TeamMember }) },
          "malformed_path",
          "account_not_found",
          "member_exists",
          "unsupported_media_type",
          "payload_too_large",
          "validation_error",
          "limit_exceeded",
        ),
        detail: {
          tags,
          security,
          operationId: "addTeamMember",
          summary: "Add a team member",
          description: "At most 10 members, the owner included (422 limit_exceeded).",
        },
      },
    )
    .get("/members", ({ params }) => accounts.listMembers(params.accountId), {
      params: AccountParams,
      response: controlResponses({ 200: TeamMemberList }, "malformed_path", "account_not_found"),
      detail: { tags, security, operationId: "listTeamMembers", summary: "List team members" },
    })
    .delete(
      "/members/:memberId",
      ({ params }) => {
        accounts.removeMember(params.accountId, params.memberId);
        return noContent();
      },
      {
        params: AccountMemberParams,
        response: controlResponses(
          { 204: NoContent("Removed") },
          "malformed_path",
          "account_not_found",
          "member_not_found",
        ),
        detail: { tags, security, operationId: "removeTeamMember", summary: "Remove a team member" },
      },
    );
}
