import { API_PREFIX } from "../../../common/addresses";
import type { ApiApp } from "../../http/auth";
import { apiRead } from "../../http/route-kit";
import { ExtensionIdParams } from "../extensions/model";
import { InstallStats } from "./model";
import type { InstallService } from "./service";

export function installRoutes(installs: () => InstallService) {
  return (app: ApiApp) =>
    app.get(
      `${API_PREFIX}/extensions/:id/installs`,
      ({ principal, params }) => installs().statsForAccount(principal.accountId, params.id),
      apiRead("Installs", "getInstallStatistics", "Install statistics", {
        auth: "extensions:read",
        description:
          "Aggregates only: total ever recorded, active now, and active per version id (byVersion sums to active).",
        params: ExtensionIdParams,
        answers: { 200: InstallStats },
        refusals: ["extension_not_found"],
      }),
    );
}
