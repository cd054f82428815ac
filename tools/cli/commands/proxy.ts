import { defineCommand } from "citty";
import { printable } from "../../../common/text/printable";
import type { ProfileBuilder } from "../../../server";
import { requestTimeoutMs } from "../../calls/transport";
import { UsageError } from "../../calls/usage-error";
import { parseClientEnv } from "../../config";
import { ProxyFilesError, startProxy } from "../../conformance/proxy";
import { EXIT, err, out } from "../output";

/** What the saved profile holds, one line per cause, and what a profile cannot hold. */
function profileSummary(profile: ProfileBuilder, file: string, saved: boolean): string[] {
  const { causes, leftOut } = profile.summary();
  const n = profile.profile().entries.length;
  const lines = [
    `profile: ${n} ${n === 1 ? "difference" : "differences"} ${saved ? "saved to" : "NOT saved: it could not be written to"} ${printable(file)}`,
  ];
  for (const c of causes) lines.push(`  ${printable(c.cause)} — seen on ${c.seen.map(printable).join(", ")}`);
  if (leftOut.length > 0) lines.push("  a profile cannot hold these (another rule, another state):");
  for (const c of leftOut) lines.push(`    ${printable(c.reason)} — seen on ${c.seen.map(printable).join(", ")}`);
  return lines;
}

export default defineCommand({
  meta: {
    name: "proxy",
    description: "Forward traffic unchanged to a Developer API server, checking each exchange against the contract",
  },
  args: {
    upstream: {
      type: "string",
      required: true,
      description: "The server to forward to: its origin or its API base",
      valueHint: "URL",
    },
    port: {
      type: "string",
      description: "Port to listen on, on 127.0.0.1 (default 4790; 0 picks a free one)",
      valueHint: "N",
    },
    report: {
      type: "string",
      description: "Write the JSON report to FILE (at most every half second while traffic comes, and on exit)",
      valueHint: "FILE",
    },
    shadow: {
      type: "boolean",
      description: "Also replay each request against an in-process emulator and diff status and shape",
    },
    "save-profile": {
      type: "string",
      description:
        "Write what the upstream does differently as a platform profile (at most every half second, and on exit); replays as --shadow does",
      valueHint: "FILE",
    },
  },
  async run({ args }) {
    let upstream: URL;
    try {
      upstream = new URL(args.upstream);
    } catch {
      throw new UsageError(`--upstream ${printable(args.upstream)} is not a URL`);
    }
    if (upstream.protocol !== "http:" && upstream.protocol !== "https:")
      throw new UsageError("--upstream must be an http or https URL");
    const timeoutMs = requestTimeoutMs(parseClientEnv().requestTimeout);
    const port = args.port === undefined ? 4790 : Number(args.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535)
      throw new UsageError("--port must be a whole number from 0 to 65535");
    let proxy: Awaited<ReturnType<typeof startProxy>>;
    // Said once, not after every exchange: the same failure would repeat until the user acts.
    let lastReportError = "";
    const onReportError = (message: string) => {
      if (message !== lastReportError) err(`error: ${printable(message)}`);
      lastReportError = message;
    };
    try {
      proxy = await startProxy({
        upstream: upstream.toString(),
        port,
        ...(args.report ? { reportFile: args.report } : {}),
        onReportError,
        shadow: Boolean(args.shadow),
        ...(args["save-profile"] ? { profileFile: args["save-profile"] } : {}),
        timeoutMs,
      });
    } catch (e) {
      err(`error: cannot listen on 127.0.0.1:${port} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
      process.exit(EXIT.runtime);
    }
    out(
      `ext proxy listening on ${proxy.url} → ${printable(upstream.origin)}${proxy.log.shadow ? " (shadow: an in-process emulator)" : ""}`,
    );
    const stop = async () => {
      let failed: string[] = [];
      let profileSaved = true;
      try {
        await proxy.stop();
      } catch (e) {
        failed = e instanceof ProxyFilesError ? e.messages : [(e as Error).message];
        profileSaved = !(e instanceof ProxyFilesError) || !e.profileUnsaved;
      }
      for (const line of proxy.log.summary()) err(line);
      if (proxy.profile)
        for (const line of profileSummary(proxy.profile, args["save-profile"]!, profileSaved)) err(line);
      for (const message of failed) err(`error: ${printable(message)}`);
      process.exit(failed.length === 0 ? EXIT.ok : EXIT.runtime);
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
    await new Promise(() => undefined);
  },
});
