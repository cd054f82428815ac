import { API_PREFIX } from "../../../common/addresses";
import type { ApiApp } from "../../http/auth";
import { NoContent, noContent } from "../../http/responses";
import { apiRead, apiRoute } from "../../http/route-kit";
import { ExtensionIdParams } from "../extensions/model";
import { PutSecretBody, SecretKeyList, SecretParams } from "./model";
import type { SecretService } from "./service";

const tag = "Secrets";

export function secretRoutes(secrets: () => SecretService) {
  return (app: ApiApp) =>
    app
      .get(
        `${API_PREFIX}/extensions/:id/secrets`,
        ({ principal, params }) => ({ keys: secrets().listNames(principal.accountId, params.id) }),
        apiRead(tag, "listSecretKeys", "List secret names", {
          auth: "secrets:read",
          description: "Names only, sorted; values are write-only and never returned.",
          params: ExtensionIdParams,
          answers: { 200: SecretKeyList },
          refusals: ["extension_not_found"],
        }),
      )
      .put(
        `${API_PREFIX}/extensions/:id/secrets/:key`,
        ({ principal, params, body, request }) => {
          secrets().put(principal.accountId, params.id, params.key, body.value);
          return noContent(request);
        },
        apiRoute(tag, "putSecret", "Create or replace a secret", {
          auth: "secrets:write",
          description:
            "Value: 1 byte to 64 KB of UTF-8, encrypted at rest (AES-256-GCM). At most 20 names per extension: the 21st is a 422 limit_exceeded; replacing does not count twice.",
          params: SecretParams,
          body: PutSecretBody,
          answers: { 204: NoContent("Stored (created or replaced)") },
          refusals: ["extension_not_found", "limit_exceeded"],
        }),
      )
      .delete(
        `${API_PREFIX}/extensions/:id/secrets/:key`,
        ({ principal, params, request }) => {
          secrets().remove(principal.accountId, params.id, params.key);
          return noContent(request);
        },
        apiRoute(tag, "deleteSecret", "Delete a secret", {
          auth: "secrets:write",
          description: "404 secret_not_found when the name does not exist.",
          params: SecretParams,
          answers: { 204: NoContent("Deleted") },
          refusals: ["extension_not_found", "secret_not_found"],
        }),
      );
}
