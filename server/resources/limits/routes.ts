import type { ApiApp } from "../../http/auth";
import { apiRead } from "../../http/route-kit";
import { ExtensionIdParams } from "../extensions/model";
import { LimitsResponse } from "./model";
import type { LimitsView } from "./view";

/**
 * GET /extensions/:id/limits. Mounted twice by the app: under /developer/v1 and under the literal
 * /v1/developer prefix the spec gives the deploy tool; same handler, same body, one operationId each.
 */
export function limitsRoutes(view: () => LimitsView, prefix: string, operationId: "getLimits" | "getDeployLimits") {
  return (app: ApiApp) =>
    app.get(
      `${prefix}/extensions/:id/limits`,
      ({ principal, params }) => view().forExtension(principal.accountId, params.id),
      apiRead("Limits", operationId, "Limits resolved for an extension", {
        auth: "extensions:read",
        description:
          "Every limit of the catalogue with its value, source (extension_override | developer_override | platform_default), default, hard maximum and override key, grouped by category; `sounds.resolvedLimit` for the deploy tool; current usage.",
        params: ExtensionIdParams,
        answers: { 200: LimitsResponse },
        refusals: ["extension_not_found"],
      }),
    );
}
