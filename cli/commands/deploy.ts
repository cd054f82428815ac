import { defineCommand } from "citty";
import { parseClientEnv } from "../../src/config";
import { deploy, DeployFailure, LocalValidationError } from "../lib/deploy";
import { reportLines } from "../lib/deploy-report";
import { ApiRequestError, endpointsFromBaseUrl } from "../lib/http";
import { UsageError } from "../lib/runner";
import { EXIT, err, out } from "../output";

export const deployArgs = {
  dir: { type: "positional", required: false, default: ".", description: "The compiled output directory (with manifest.json at its root)", valueHint: "DIR" },
  extension: { type: "string", description: "Extension id (env EXT_EXTENSION_ID; else extensionId in manifest.json)", valueHint: "ID" },
  version: { type: "string", description: "Version label (else version in manifest.json)", valueHint: "LABEL" },
  changelog: { type: "string", description: "Changelog of this version", valueHint: "TEXT" },
  "api-key": { type: "string", description: "Developer API key (env EXT_API_KEY)", valueHint: "KEY" },
  target: { type: "string", description: "`local` (env EXT_LOCAL_URL, default http://127.0.0.1:4780/developer/v1) or a base URL ending in /developer/v1", valueHint: "local|URL" },
  build: { type: "string", description: "Run this build command first, stopped past the build-time limit", valueHint: "CMD" },
  "dry-run": { type: "boolean", description: "Do every check and the packing, upload nothing" },
  json: { type: "boolean", description: "Print one JSON object (progress and warnings stay on stderr)" },
  wait: { type: "boolean", description: "Wait until the version is approved or rejected" },
  timeout: { type: "string", description: "Seconds --wait waits (default 600)", valueHint: "S" },
} as const;

export default defineCommand({
  meta: { name: "deploy", description: "Check, pack and upload a version of an extension (wraps POST /extensions/:id/versions)" },
  args: deployArgs,
  async run({ args }) {
    const env = parseClientEnv();
    const apiKey = args["api-key"] || env.apiKey;
    if (!apiKey) throw new UsageError("no API key: give --api-key or set EXT_API_KEY");
    const target = args.target ?? "local";
    if (!target) throw new UsageError("--target needs `local` or a URL");
    const endpoints = endpointsFromBaseUrl(target === "local" ? env.localUrl : target);
    const timeoutSeconds = args.timeout === undefined ? 600 : Number(args.timeout);
    if (!Number.isInteger(timeoutSeconds) || timeoutSeconds < 1) throw new UsageError(`--timeout must be a whole number of seconds ≥ 1 (got "${args.timeout}")`);
    const json = Boolean(args.json);
    try {
      const result = await deploy({
        dir: args.dir || ".",
        extensionId: args.extension || env.extensionId,
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
      });
      if (json) out(JSON.stringify(result));
      else for (const line of reportLines(result, true)) out(line);
    } catch (e) {
      // A failure after packing still reports what was packed, uploaded and learnt; then its own error.
      const report = e instanceof DeployFailure ? e.report : null;
      const cause = e instanceof DeployFailure ? e.cause : e;
      if (report && !json) for (const line of reportLines(report, false)) out(line);
      if (cause instanceof LocalValidationError) {
        if (json) out(JSON.stringify({ ok: false, problems: cause.problems, ...report }));
        err(`error: ${cause.message}`);
        process.exit(EXIT.usage);
      }
      if (json) out(JSON.stringify({ ok: false, error: errorJson(cause), ...report }));
      throw cause;
    }
  },
});

/** The server's envelope as it came (it carries its HTTP status), else the message. */
function errorJson(e: unknown): unknown {
  if (e instanceof ApiRequestError) return e.body ?? { message: e.message, status: e.status };
  return { message: (e as Error)?.message ?? String(e) };
}
