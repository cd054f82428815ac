import { defineCommand } from "citty";
import { UsageError } from "../../src/calls/usage-error";
import { startProxy } from "../../src/conformance/proxy";
import { printable } from "../../src/printable";
import { EXIT, err, out } from "../output";

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
      description: "Write the JSON report to FILE (after each exchange, and on exit)",
      valueHint: "FILE",
    },
    shadow: {
      type: "boolean",
      description: "Also replay each request against an in-process emulator and diff status and shape",
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
    const port = args.port === undefined ? 4790 : Number(args.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535)
      throw new UsageError("--port must be a whole number from 0 to 65535");
    let proxy: Awaited<ReturnType<typeof startProxy>>;
    try {
      proxy = await startProxy({
        upstream: upstream.toString(),
        port,
        ...(args.report ? { reportFile: args.report } : {}),
        shadow: Boolean(args.shadow),
      });
    } catch (e) {
      err(`error: cannot listen on 127.0.0.1:${port} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
      process.exit(EXIT.runtime);
    }
    out(
      `ext proxy listening on ${proxy.url} → ${printable(upstream.origin)}${args.shadow ? " (shadow: an in-process emulator)" : ""}`,
    );
    const stop = async () => {
      await proxy.stop();
      for (const line of proxy.log.summary()) err(line);
      process.exit(EXIT.ok);
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
    await new Promise(() => undefined);
  },
});
