import { API_PREFIX } from "../../../common/addresses";
import { limitDefinition } from "../../../common/limits-catalog";
import type { ApiApp } from "../../http/auth";
import { SerializedJson } from "../../http/request-context";
import { NoContent, noContent, readyAnswer } from "../../http/responses";
import { apiRead, apiRoute } from "../../http/route-kit";
import {
  CreateExtensionBody,
  Extension,
  ExtensionCreated,
  ExtensionIdParams,
  ExtensionList,
  UpdateExtensionBody,
} from "./model";
import type { ExtensionService } from "./service";

const tag = "Extensions";

const PATH = `${API_PREFIX}/extensions`;

export function extensionRoutes(extensions: () => ExtensionService) {
  return (app: ApiApp) =>
    app
      // The hot path: the body comes serialized from the service's cache (its shape is the ExtensionList schema below:
      // the service's prepared list query), the answer made once, by the answer step, with the request's rate-limit
      // headers. A `new`, not a call, is what the handler returns: Elysia then composes the route without an await
      // (server/http/pre-routing.ts).
      .get(
        PATH,
        ({ principal }) => new SerializedJson(extensions().listJson(principal.accountId)),
        apiRead(tag, "listExtensions", "List the account's extensions", {
          auth: "extensions:read",
          description: "Newest first. No pagination.",
          answers: { 200: readyAnswer(ExtensionList) },
        }),
      )
      .get(
        `${PATH}/:id`,
        ({ principal, params }) => extensions().get(principal.accountId, params.id),
        apiRead(tag, "getExtension", "Get one extension (full object)", {
          auth: "extensions:read",
          params: ExtensionIdParams,
          answers: { 200: Extension },
          refusals: ["extension_not_found"],
        }),
      )
      .post(
        PATH,
        ({ principal, body, set }) => {
          set.status = 201;
          return { extension: extensions().create(principal.accountId, body) };
        },
        apiRoute(tag, "createExtension", "Create an extension", {
          auth: "extensions:write",
          description: `Status is draft. At most ${limitDefinition("max_extensions_per_account").default} extensions per account (422 limit_exceeded).`,
          body: CreateExtensionBody,
          answers: { 201: ExtensionCreated },
          refusals: ["limit_exceeded"],
        }),
      )
      .patch(
        `${PATH}/:id`,
        ({ principal, params, body }) => extensions().update(principal.accountId, params.id, body),
        apiRoute(tag, "updateExtension", "Update an extension", {
          auth: "extensions:write",
          description: "Only the fields sent change; updatedAt moves only when something changed.",
          params: ExtensionIdParams,
          body: UpdateExtensionBody,
          answers: { 200: Extension },
          refusals: ["extension_not_found"],
        }),
      )
      .delete(
        `${PATH}/:id`,
        ({ principal, params, request }) => {
          extensions().remove(principal.accountId, params.id);
          return noContent(request);
        },
        apiRoute(tag, "deleteExtension", "Delete an extension", {
          auth: "extensions:write",
          description: "Refused with 409 extension_listed once it has ever been publicly listed.",
          params: ExtensionIdParams,
          answers: { 204: NoContent("Deleted, with its versions, bundles, secrets and installs") },
          refusals: ["extension_not_found", "extension_listed"],
        }),
      );
}
