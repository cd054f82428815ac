import { defineCommand } from "citty";
import { createAdminClient } from "../../client";
import { DEFAULT_PORT, parseServerConfig, urlHost } from "../../src/config";
import { fail, out } from "../output";

/** The address a server started with the same environment listens on, as seen from this machine. */
function localRoot(): string {
  const { host, port } = parseServerConfig({});
  return `http://${urlHost(host)}:${port || DEFAULT_PORT}`;
}

export default defineCommand({
  meta: {
    name: "health",
    description: "Exit 0 when the emulator answers /healthz (a container HEALTHCHECK that needs no curl), 1 otherwise",
  },
  args: {
    url: {
      type: "string",
      description: "The emulator's root URL (default: from EXT_HOST and EXT_PORT, as `ext serve` reads them)",
      valueHint: "URL",
    },
    timeout: { type: "string", description: "Give up after this many milliseconds (default 2000)", valueHint: "MS" },
  },
  async run({ args }) {
    const root = (args.url ?? localRoot()).replace(/\/+$/, "");
    const timeoutMs = Number(args.timeout ?? 2000);
    if (!Number.isInteger(timeoutMs) || timeoutMs < 1) fail(`--timeout must be a positive whole number of ms`, 2);
    let problem: string;
    try {
      const health = createAdminClient({ url: root });
      const { data, response: res } = await health.GET("/healthz", { signal: AbortSignal.timeout(timeoutMs) });
      if (res.ok && data?.status === "ok") {
        out(`ok: ${root}`);
        return;
      }
      problem = `${root}/healthz answered ${res.status}`;
    } catch (e) {
      problem = `no emulator answered at ${root}/healthz (${(e as Error).message})`;
    }
    fail(problem);
  },
});
