import { Elysia, t } from "elysia";
import { AUTHED, errorResponses } from "../errors/model";
import { apiAuth } from "../http/auth";
import { noContent } from "../http/responses";
import type { ExtensionService } from "./service";
import { CreateExtensionBody, Extension, ExtensionCreated, ExtensionIdParams, ExtensionList, UpdateExtensionBody } from "./model";

const tags = ["Extensions"];
const JSON_HEADERS = { "content-type": "application/json;charset=utf-8" };

export function extensionRoutes(extensions: ExtensionService) {
  return new Elysia({ prefix: "/extensions" })
    .use(apiAuth)
    // The hot path: the body comes serialized from the service's cache (its shape is the ExtensionList schema below,
    // built from the same prepared query as `list`); Elysia still merges the rate-limit headers into it.
    .get("", ({ principal }) => new Response(extensions.listJson(principal.accountId), { headers: JSON_HEADERS }), {
      auth: "extensions:read",
      response: { 200: ExtensionList, ...errorResponses(...AUTHED) },
      detail: { tags, summary: "List the account's extensions", description: "Newest first. No pagination." },
    })
    .get("/:id", ({ principal, params }) => extensions.get(principal.accountId, params.id), {
      auth: "extensions:read",
      params: ExtensionIdParams,
      response: { 200: Extension, ...errorResponses(...AUTHED, 404) },
      detail: { tags, summary: "Get one extension (full object)" },
    })
    .post(
      "",
      ({ principal, body, set }) => {
        set.status = 201;
        return { extension: extensions.create(principal.accountId, body) };
      },
      {
        auth: "extensions:write",
        json: true,
        body: CreateExtensionBody,
        response: { 201: ExtensionCreated, ...errorResponses(...AUTHED, 415, 422) },
        detail: { tags, summary: "Create an extension", description: "Status is draft. At most 25 extensions per account (422 limit_exceeded)." },
      },
    )
    .patch("/:id", ({ principal, params, body }) => extensions.update(principal.accountId, params.id, body), {
      auth: "extensions:write",
      json: true,
      params: ExtensionIdParams,
      body: UpdateExtensionBody,
      response: { 200: Extension, ...errorResponses(...AUTHED, 404, 415, 422) },
      detail: { tags, summary: "Update an extension", description: "Only the fields sent change; updatedAt moves only when something changed." },
    })
    .delete(
      "/:id",
      ({ principal, params }) => {
        extensions.remove(principal.accountId, params.id);
        return noContent();
      },
      {
        auth: "extensions:write",
        params: ExtensionIdParams,
        response: { 204: t.Void({ description: "Deleted, with its versions, bundles, secrets and installs" }), ...errorResponses(...AUTHED, 404, 409) },
        detail: { tags, summary: "Delete an extension", description: "Refused with 409 extension_listed once it has ever been publicly listed." },
      },
    );
}
