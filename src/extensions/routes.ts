import { Elysia } from "elysia";
import { JSON_BODY_ERRORS } from "../errors/codes";
import { apiAuth } from "../http/auth";
import { apiResponses, jsonResponse, NoContent, noContent } from "../http/responses";
import { limitDefinition } from "../limits/catalog";
import {
  CreateExtensionBody,
  Extension,
  ExtensionCreated,
  ExtensionIdParams,
  ExtensionList,
  UpdateExtensionBody,
} from "./model";
import type { ExtensionService } from "./service";

const tags = ["Extensions"];

export function extensionRoutes(extensions: () => ExtensionService) {
  return (
    new Elysia({ prefix: "/extensions" })
      .use(apiAuth)
      // The hot path: the body comes serialized from the service's cache (its shape is the ExtensionList schema below:
      // the service's prepared list query), the answer made once with the request's rate-limit headers.
      .get("", ({ principal, request }) => jsonResponse(extensions().listJson(principal.accountId), request), {
        auth: "extensions:read",
        response: apiResponses({ 200: ExtensionList }),
        detail: {
          tags,
          operationId: "listExtensions",
          summary: "List the account's extensions",
          description: "Newest first. No pagination.",
        },
      })
      .get("/:id", ({ principal, params }) => extensions().get(principal.accountId, params.id), {
        auth: "extensions:read",
        params: ExtensionIdParams,
        response: apiResponses({ 200: Extension }, "malformed_path", "extension_not_found"),
        detail: { tags, operationId: "getExtension", summary: "Get one extension (full object)" },
      })
      .post(
        "",
        ({ principal, body, set }) => {
          set.status = 201;
          return { extension: extensions().create(principal.accountId, body) };
        },
        {
          auth: "extensions:write",
          json: true,
          body: CreateExtensionBody,
          response: apiResponses({ 201: ExtensionCreated }, ...JSON_BODY_ERRORS, "limit_exceeded"),
          detail: {
            tags,
            operationId: "createExtension",
            summary: "Create an extension",
            description: `Status is draft. At most ${limitDefinition("max_extensions_per_account").default} extensions per account (422 limit_exceeded).`,
          },
        },
      )
      .patch("/:id", ({ principal, params, body }) => extensions().update(principal.accountId, params.id, body), {
        auth: "extensions:write",
        json: true,
        params: ExtensionIdParams,
        body: UpdateExtensionBody,
        response: apiResponses({ 200: Extension }, "malformed_path", "extension_not_found", ...JSON_BODY_ERRORS),
        detail: {
          tags,
          operationId: "updateExtension",
          summary: "Update an extension",
          description: "Only the fields sent change; updatedAt moves only when something changed.",
        },
      })
      .delete(
        "/:id",
        ({ principal, params, request }) => {
          extensions().remove(principal.accountId, params.id);
          return noContent(request);
        },
        {
          auth: "extensions:write",
          params: ExtensionIdParams,
          response: apiResponses(
            { 204: NoContent("Deleted, with its versions, bundles, secrets and installs") },
            "malformed_path",
            "extension_not_found",
            "extension_listed",
          ),
          detail: {
            tags,
            operationId: "deleteExtension",
            summary: "Delete an extension",
            description: "Refused with 409 extension_listed once it has ever been publicly listed.",
          },
        },
      )
  );
}
