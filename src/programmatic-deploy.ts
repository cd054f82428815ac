/**
 * The Bun helper's `deploy(folder, …)`: the deploy core of `ext deploy` (cli/lib/deploy.ts) run in process,
 * so packing, exclusions and local checks are exactly the CLI's; a failure goes through the same `--json`
 * shape and the same reading of it as the Node helper's (client/deploy-result.ts), so both reject alike.
 */

import { deploy } from "../cli/lib/deploy";
import { deployFailureJson } from "../cli/lib/deploy-outcome";
import { endpointsFromAnyUrl } from "../cli/lib/http";
import { type DeployJson, deployOutcome } from "../client/deploy-result";
import type { DeployRunner } from "../client/emulator-connection";

export const deployInProcess: DeployRunner = async (at, folder, options) => {
  let json: DeployJson;
  try {
    json = await deploy({
      dir: folder,
      extensionId: options.extensionId,
      version: options.version,
      changelog: options.changelog ?? "",
      apiKey: at.apiKey,
      endpoints: endpointsFromAnyUrl(at.baseUrl),
      build: null,
      dryRun: false,
      wait: false,
      timeoutSeconds: 1,
      // The CLI's progress and warnings: a test reads the warnings from the result instead.
      note: () => {},
      tty: false,
      catchInterrupts: false,
    });
  } catch (e) {
    json = deployFailureJson(e);
  }
  return deployOutcome(json, { extensionId: options.extensionId, otherwise: "no result" });
};
