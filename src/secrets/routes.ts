import { Elysia, t } from "elysia";
import { AUTHED, errorResponses } from "../errors/model";
import { ExtensionIdParams } from "../extensions/model";
import { apiAuth } from "../http/auth";
import { noContent } from "../http/responses";
import { PutSecretBody, SecretKeyList, SecretParams } from "./model";
import type { SecretService } from "./service";

const tags = ["Secrets"];

export function secretRoutes(secrets: SecretService) {
  return new Elysia({ prefix: "/extensions" })
    .use(apiAuth)
    .get("/:id/secrets", ({ principal, params }) => ({ keys: secrets.listNames(principal.accountId, params.id) }), {
      auth: "secrets:read",
      params: ExtensionIdParams,
      response: { 200: SecretKeyList, ...errorResponses(...AUTHED, 404) },
      detail: { tags, summary: "List secret names", description: "Names only, sorted; values are write-only and never returned." },
    })
    .put(
      "/:id/secrets/:key",
      ({ principal, params, body }) => {
        secrets.put(principal.accountId, params.id, params.key, body.value);
        return noContent();
      },
      {
        auth: "secrets:write",
        json: true,
        params: SecretParams,
        body: PutSecretBody,
        response: { 204: t.Void({ description: "Stored (created or replaced)" }), ...errorResponses(...AUTHED, 404, 415, 422) },
        detail: {
          tags,
          summary: "Create or replace a secret",
          description:
            "Value: 1 byte to 64 KB of UTF-8, encrypted at rest (AES-256-GCM). At most 20 names per extension: the 21st is a 422 limit_exceeded; replacing does not count twice.",
        },
      },
    )
    .delete(
      "/:id/secrets/:key",
      ({ principal, params }) => {
        secrets.remove(principal.accountId, params.id, params.key);
        return noContent();
      },
      {
        auth: "secrets:write",
        params: SecretParams,
        response: { 204: t.Void({ description: "Deleted" }), ...errorResponses(...AUTHED, 404, 422) },
        detail: { tags, summary: "Delete a secret", description: "404 secret_not_found when the name does not exist." },
      },
    );
}
