import { Elysia } from "elysia";
import { apiAuth } from "../http/auth";
import { InstallStats } from "../resources/installs/model";
import type { InstallService } from "../resources/installs/service";
import { IdParams, InstallBody, RolloutBody } from "../runtime/control-state/model";
import { controlRoute } from "./route-kit";

/** What installing a version can run into: the extension, the version, whether it may be installed, the sound limit. */
const INSTALLING = [
  "extension_not_found",
  "version_not_found",
  "no_current_version",
  "version_not_installable",
  "limit_exceeded",
] as const;

/** What end users do: install and uninstall. The developer API only ever sees the aggregates. */
export function installControlRoutes(installs: InstallService) {
  return new Elysia({ prefix: "/extensions/:id" })
    .use(apiAuth)
    .post(
      "/installs",
      ({ params, body }) => installs.recordInstall(params.id, body),
      controlRoute("recordInstalls", "Record installs of an extension", {
        description:
          "Default: one install of the current version. The version's sounds are checked again against the sound limit as it resolves now (spec: validated again at install time); 422 limit_exceeded when they no longer fit. Returns the install statistics.",
        params: IdParams,
        body: InstallBody,
        answers: { 200: InstallStats },
        refusals: INSTALLING,
      }),
    )
    .post(
      "/uninstalls",
      ({ params, body }) => installs.recordUninstall(params.id, body),
      controlRoute("recordUninstalls", "Record uninstalls (of the given version, or of any)", {
        description:
          "Without a versionId, the versions installed first lose theirs first. Returns the install statistics.",
        params: IdParams,
        body: InstallBody,
        answers: { 200: InstallStats },
        refusals: ["extension_not_found", "version_not_found", "not_enough_installs"],
      }),
    )
    .post(
      "/rollouts",
      ({ params, body }) => installs.recordRollout(params.id, body),
      controlRoute("recordRollout", "Move active installs to another version (an update rollout)", {
        description:
          "Moves count active installs (default: all of the source) from fromVersionId (default: every other version, those installed first going first) onto toVersionId (default: the current version), which must be installable like an install (approved; its sounds re-checked). total does not change: an update is not a new install. Returns the install statistics.",
        params: IdParams,
        body: RolloutBody,
        answers: { 200: InstallStats },
        refusals: [...INSTALLING, "not_enough_installs"],
      }),
    );
}
