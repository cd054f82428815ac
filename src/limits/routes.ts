import { Elysia } from "elysia";
import { ExtensionIdParams } from "../extensions/model";
import { apiAuth } from "../http/auth";
import { apiResponses } from "../http/responses";
import { LimitsResponse } from "./model";
import type { LimitsView } from "./view";

/**
 * GET /extensions/:id/limits. Mounted twice by the app: under /developer/v1 and under the literal
 * /v1/developer prefix the spec gives the deploy tool; same handler, same body, one operationId each.
 */
export function limitsRoutes(view: () => LimitsView, operationId: "getLimits" | "getDeployLimits") {
  return new Elysia()
    .use(apiAuth)
    .get("/extensions/:id/limits", ({ principal, params }) => view().forExtension(principal.accountId, params.id), {
      auth: "extensions:read",
      params: ExtensionIdParams,
      response: apiResponses({ 200: LimitsResponse }, "malformed_path", "extension_not_found"),
      detail: {
        operationId,
        tags: ["Limits"],
        summary: "Limits resolved for an extension",
        description:
          "Every limit of the catalogue with its value, source (extension_override | developer_override | platform_default), default, hard maximum and override key, grouped by category; `sounds.resolvedLimit` for the deploy tool; current usage.",
      },
    });
}
