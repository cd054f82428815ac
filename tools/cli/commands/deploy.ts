import { defineCommand } from "citty";
import { DEFAULT_MAX_WAIT_SECONDS, setWaitBound } from "../../calls/http";
import { UsageError } from "../../calls/usage-error";
import { parseClientEnv } from "../../config";
import { deploy } from "../../deploy/deploy";
import { DeployFailure, deployFailureJson, Interrupted, LocalValidationError } from "../../deploy/outcome";
import { reportLines } from "../lib/deploy-report";
import { listenForInterrupts } from "../lib/interrupts";
import { extensionArg, jsonArg, resolveApi, targetArgs } from "../lib/target";
import { EXIT, err, out } from "../output";

/** How long --wait waits by default: a review on the emulator is someone's action, minutes at most. */
const DEFAULT_WAIT_SECONDS = 120;

export const deployArgs = {
  dir: {
    type: "positional",
    required: false,
    default: ".",
    description: "The compiled output directory (with manifest.json at its root)",
    valueHint: "DIR",
  },
  extension: { ...extensionArg, description: "Extension id (env EXT_EXTENSION_ID; else extensionId in manifest.json)" },
  version: { type: "string", description: "Version label (else version in manifest.json)", valueHint: "LABEL" },
  changelog: { type: "string", description: "Changelog of this version", valueHint: "TEXT" },
  ...targetArgs,
  build: {
    type: "string",
    description: "Run this build command first, stopped past the build-time limit",
    valueHint: "CMD",
  },
  "dry-run": { type: "boolean", description: "Do every check and the packing, upload nothing" },
  json: { ...jsonArg, description: "Print one JSON object (progress and warnings stay on stderr)" },
  wait: { type: "boolean", description: "Wait until the version is approved or rejected" },
  timeout: {
    type: "string",
    description: `Seconds --wait waits (default ${DEFAULT_WAIT_SECONDS})`,
    valueHint: "S",
  },
  "max-wait": {
    type: "string",
    description: `Seconds spent in all waiting out rate limits (429) before giving up (env EXT_MAX_WAIT; default ${DEFAULT_MAX_WAIT_SECONDS}; 0 never waits)`,
    valueHint: "S",
  },
} as const;

export default defineCommand({
  meta: {
    name: "deploy",
    description: "Check, pack and upload a version of an extension (wraps POST /extensions/:id/versions)",
  },
  args: deployArgs,
  async run({ args }) {
    const json = Boolean(args.json);
    const timeoutSeconds = args.timeout === undefined ? DEFAULT_WAIT_SECONDS : Number(args.timeout);
    if (!Number.isInteger(timeoutSeconds) || timeoutSeconds < 1)
      throw new UsageError(`--timeout must be a whole number of seconds ≥ 1 (got "${args.timeout}")`);
    setWaitBound(args["max-wait"]);
    const { apiKey, endpoints } = await resolveApi(args);
    const extensionId = args.extension || parseClientEnv().extensionId;
    try {
      const result = await deploy({
        dir: args.dir || ".",
        extensionId,
        version: args.version || null,
        changelog: args.changelog ?? "",
        apiKey,
        endpoints,
        build: args.build || null,
        dryRun: Boolean(args["dry-run"]),
        wait: Boolean(args.wait),
        timeoutSeconds,
        note: err,
        tty: Boolean(process.stderr.isTTY) && !json,
        listenForInterrupts,
      });
      if (json) out(JSON.stringify(result));
      else for (const line of reportLines(result, true)) out(line);
    } catch (e) {
      // A failure after packing still reports what was packed, uploaded and learnt; then its own error.
      const report = e instanceof DeployFailure ? e.report : null;
      const cause = e instanceof DeployFailure ? e.cause : e;
      if (report && !json) for (const line of reportLines(report, false)) out(line);
      if (cause instanceof LocalValidationError) {
        if (json) out(JSON.stringify(deployFailureJson(e)));
        err(`error: ${cause.message}`);
        process.exit(EXIT.usage);
      }
      if (json) out(JSON.stringify(deployFailureJson(e)));
      if (cause instanceof Interrupted) {
        err(cause.message);
        process.exit(EXIT.interrupted);
      }
      throw cause;
    }
  },
});
