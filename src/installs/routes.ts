import { Elysia } from "elysia";
import { ExtensionIdParams } from "../extensions/model";
import { apiAuth } from "../http/auth";
import { apiResponses } from "../http/responses";
import { InstallStats } from "./model";
import type { InstallService } from "./service";

const tags = ["Installs"];

export function installRoutes(installs: () => InstallService) {
  return new Elysia({ prefix: "/extensions" })
    .use(apiAuth)
    .get("/:id/installs", ({ principal, params }) => installs().statsForAccount(principal.accountId, params.id), {
      auth: "extensions:read",
      params: ExtensionIdParams,
      response: apiResponses({ 200: InstallStats }, "malformed_path", "extension_not_found"),
      detail: {
        tags,
        operationId: "getInstallStatistics",
        summary: "Install statistics",
        description:
          "Aggregates only: total ever recorded, active now, and active per version id (byVersion sums to active).",
      },
    });
}
