import { Elysia } from "elysia";
import { AUTHED, errorResponses } from "../errors/model";
import { ExtensionIdParams } from "../extensions/model";
import { apiAuth } from "../http/auth";
import { InstallStats } from "./model";
import type { InstallService } from "./service";

const tags = ["Installs"];

export function installRoutes(installs: InstallService) {
  return new Elysia({ prefix: "/extensions" })
    .use(apiAuth)
    .get("/:id/installs", ({ principal, params }) => installs.statsForAccount(principal.accountId, params.id), {
      auth: "extensions:read",
      params: ExtensionIdParams,
      response: { 200: InstallStats, ...errorResponses(...AUTHED, 404) },
      detail: {
        tags,
        summary: "Install statistics",
        description: "Aggregates only: total ever recorded, active now, and active per version id (byVersion sums to active).",
      },
    });
}
