import { defineCommand } from "citty";
import { writePrivateFile } from "../../../common/files/private-file";
import { printable } from "../../../common/text/printable";
import { type LoadedProfile, ProfileError, readProfileFile, writeProfileFile } from "../../../server";
import { describeError } from "../../calls/api-error";
import { requestTimeoutMs } from "../../calls/transport";
import { UsageError } from "../../calls/usage-error";
import { parseClientEnv } from "../../config";
import { conforms, jsonReport, junitReport, textReport } from "../../conformance/report";
import { runConformance } from "../../conformance/run";
import { EXIT, err, out } from "../output";

export default defineCommand({
  meta: {
    name: "conformance",
    description: "Check a Developer API server (the platform, or ext) against the spec and ext's choices",
  },
  args: {
    target: {
      type: "string",
      required: true,
      description: "The server: its origin or its API base (…/developer/v1)",
      valueHint: "URL",
    },
    "api-key": {
      type: "string",
      description:
        "A developer API key of the target with every scope (env EXT_API_KEY; prefer it: a flag shows in `ps` to every local user)",
      valueHint: "KEY",
    },
    "read-only-key": {
      type: "string",
      description:
        "A second, narrower key (read, no write): enables the 403 checks (env EXT_READ_ONLY_KEY; prefer it: a flag shows in `ps`)",
      valueHint: "KEY",
    },
    "include-rate-limits": {
      type: "boolean",
      description:
        "Also exhaust the GET window (120/minute) to check the 429: locks the account's GETs for up to a minute",
    },
    "dry-run": { type: "boolean", description: "List the requests the run would send; send nothing" },
    json: { type: "boolean", description: "Print the run as JSON on stdout, nothing else" },
    junit: { type: "string", description: "Also write a JUnit XML report to FILE", valueHint: "FILE" },
    "save-profile": {
      type: "string",
      description:
        "Write what the target does differently as a platform profile (ext serve --profile FILE answers the same way)",
      valueHint: "FILE",
    },
    profile: {
      type: "string",
      description:
        "Check the target against a saved profile: entries it no longer shows are stale, differences the profile lacks are new",
      valueHint: "FILE",
    },
  },
  async run({ args }) {
    const env = parseClientEnv();
    const apiKey = args["api-key"] || env.apiKey;
    const readOnlyKey = args["read-only-key"] || env.readOnlyKey;
    const timeoutMs = requestTimeoutMs(env.requestTimeout);
    if (!apiKey && !args["dry-run"]) throw new UsageError("no API key: give --api-key or set EXT_API_KEY");
    let url: URL;
    try {
      url = new URL(args.target);
    } catch {
      throw new UsageError(
        `--target ${printable(args.target)} is not a URL (e.g. https://api.example.com/developer/v1)`,
      );
    }
    if (url.protocol !== "http:" && url.protocol !== "https:")
      throw new UsageError("--target must be an http or https URL");
    let given: LoadedProfile | undefined;
    if (args.profile) {
      try {
        given = readProfileFile(args.profile);
      } catch (e) {
        if (e instanceof ProfileError) throw new UsageError(`--profile ${printable(args.profile)}: ${e.message}`);
        throw e;
      }
    }
    const json = Boolean(args.json);
    const controller = new AbortController();
    // Ctrl-C stops the checks after the request in flight; the cleanup then still deletes the scratch extension.
    const onInterrupt = () => {
      if (!json) err("interrupted: cleaning up (Ctrl-C again to leave now)");
      controller.abort();
      process.once("SIGINT", () => process.exit(EXIT.interrupted));
    };
    process.once("SIGINT", onInterrupt);
    const report = await runConformance(
      {
        url: url.toString(),
        apiKey: apiKey ?? "<api-key>",
        ...(readOnlyKey ? { readOnlyKey } : {}),
      },
      {
        includeRateLimits: Boolean(args["include-rate-limits"]),
        ...(given ? { profile: given.compiled.profile } : {}),
        dryRun: Boolean(args["dry-run"]),
        signal: controller.signal,
        timeoutMs,
        onResult: (r) => {
          if (!json && !args["dry-run"] && r.outcome !== "skipped")
            err(`${r.outcome === "passed" ? "ok     " : r.kind === "spec" ? "DIFFERS" : "choice "} ${r.id}`);
        },
      },
    ).finally(() => process.off("SIGINT", onInterrupt));
    if (json) out(jsonReport(report));
    else for (const line of textReport(report)) out(line);
    // After the report is shown, each file on its own: one that cannot be written loses nothing the run found,
    // nor the other file; the command then fails naming each.
    const unwritten: unknown[] = [];
    const attempt = (write: () => void) => {
      try {
        write();
      } catch (e) {
        unwritten.push(e);
      }
    };
    const junit = args.junit;
    if (junit) attempt(() => writePrivateFile(junit, junitReport(report), { what: "the JUnit report" }));
    const saveProfile = args["save-profile"];
    if (saveProfile && !args["dry-run"])
      attempt(() => {
        const { profile, leftOut } = report.observed;
        writeProfileFile(saveProfile, profile);
        if (!json)
          out(
            `profile: ${profile.entries.length} ${profile.entries.length === 1 ? "difference" : "differences"} saved to ${printable(saveProfile)}${leftOut.length > 0 ? `; ${leftOut.length} a profile cannot hold, listed above` : ""}`,
          );
      });
    for (const e of unwritten) err(`error: ${describeError(e)}`);
    if (unwritten.length > 0) process.exit(EXIT.runtime);
    if (report.interrupted) process.exit(EXIT.interrupted);
    if (report.rateLimited) process.exit(EXIT.rateLimited);
    if (!args["dry-run"] && !conforms(report)) process.exit(EXIT.runtime);
  },
});
