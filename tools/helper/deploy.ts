/**
 * The Bun helper's `deploy(folder, …)`: the deploy core of `ext deploy` (tools/deploy/deploy.ts) run in process,
 * so packing, exclusions and local checks are exactly the CLI's; a failure goes through the same `--json`
 * shape and the same reading of it as the Node helper's (client/deploy-result.ts), so both reject alike.
 */

import { type DeployJson, deployOutcome } from "../../client/deploy-result";
import type { DeployRunner } from "../../client/emulator-connection";
import { endpointsFromAnyUrl } from "../calls/http";
import { deploy } from "../deploy/deploy";
import { deployFailureJson } from "../deploy/outcome";

export const deployInProcess: DeployRunner = async (at, folder, options) => {
  let json: DeployJson;
  try {
    json = await deploy({
      dir: folder,
      extensionId: options.extensionId,
      version: options.version,
      changelog: options.changelog ?? "",
      apiKey: at.apiKey,
      // Proven before the key is sent, as the CLI proves a server named with its token.
      endpoints: endpointsFromAnyUrl(at.baseUrl, { proveWith: at.adminToken || null }),
      build: null,
      dryRun: false,
      wait: false,
      timeoutSeconds: 1,
      // The CLI's progress and warnings: a test reads the warnings from the result instead.
      note: () => {},
      tty: false,
    });
  } catch (e) {
    json = deployFailureJson(e);
  }
  return deployOutcome(json, { extensionId: options.extensionId, otherwise: "no result" });
};
