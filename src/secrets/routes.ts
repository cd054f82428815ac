import { Elysia } from "elysia";
import { JSON_BODY_ERRORS } from "../errors/codes";
import { ExtensionIdParams } from "../extensions/model";
import { apiAuth } from "../http/auth";
import { apiResponses, NoContent, noContent } from "../http/responses";
import { PutSecretBody, SecretKeyList, SecretParams } from "./model";
import type { SecretService } from "./service";

const tags = ["Secrets"];

export function secretRoutes(secrets: () => SecretService) {
  return new Elysia({ prefix: "/extensions" })
    .use(apiAuth)
    .get("/:id/secrets", ({ principal, params }) => ({ keys: secrets().listNames(principal.accountId, params.id) }), {
      auth: "secrets:read",
      params: ExtensionIdParams,
      response: apiResponses({ 200: SecretKeyList }, "malformed_path", "extension_not_found"),
      detail: {
        tags,
        operationId: "listSecretKeys",
        summary: "List secret names",
        description: "Names only, sorted; values are write-only and never returned.",
      },
    })
    .put(
      "/:id/secrets/:key",
      ({ principal, params, body, request }) => {
        secrets().put(principal.accountId, params.id, params.key, body.value);
        return noContent(request);
      },
      {
        auth: "secrets:write",
        json: true,
        params: SecretParams,
        body: PutSecretBody,
        response: apiResponses(
          { 204: NoContent("Stored (created or replaced)") },
          "malformed_path",
          "extension_not_found",
          ...JSON_BODY_ERRORS,
          "limit_exceeded",
        ),
        detail: {
          tags,
          operationId: "putSecret",
          summary: "Create or replace a secret",
          description:
            "Value: 1 byte to 64 KB of UTF-8, encrypted at rest (AES-256-GCM). At most 20 names per extension: the 21st is a 422 limit_exceeded; replacing does not count twice.",
        },
      },
    )
    .delete(
      "/:id/secrets/:key",
      ({ principal, params, request }) => {
        secrets().remove(principal.accountId, params.id, params.key);
        return noContent(request);
      },
      {
        auth: "secrets:write",
        params: SecretParams,
        response: apiResponses(
          { 204: NoContent("Deleted") },
          "malformed_path",
          "extension_not_found",
          "secret_not_found",
          "validation_error",
        ),
        detail: {
          tags,
          operationId: "deleteSecret",
          summary: "Delete a secret",
          description: "404 secret_not_found when the name does not exist.",
        },
      },
    );
}
