import { defineCommand } from "citty";
import { printable } from "../../../common/text/printable";
import { RedirectAnswerError } from "../../calls/answer-reader";
import { adminClient, type Endpoints, endpointsFromAnyUrl } from "../../calls/http";
import { resolveServer } from "../lib/target";
import { fail, out } from "../output";

/**
 * `--url` as given; else the server every other command would use (--target, EXT_BASE_URL, EXT_LOCAL_URL, else
 * the `ext serve` of the nearest data directory, verified by its proof): never a guessed port, where another
 * local user could be listening and vouched for.
 */
async function endpointsOf(args: { url?: string; target?: string }, timeoutMs: number): Promise<Endpoints> {
  if (args.url !== undefined) return endpointsFromAnyUrl(args.url, { timeoutMs });
  return (await resolveServer({ target: args.target }, undefined, undefined, timeoutMs)).endpoints;
}

export default defineCommand({
  meta: {
    name: "health",
    description: "Exit 0 when the emulator answers /healthz (a container HEALTHCHECK that needs no curl), 1 otherwise",
  },
  args: {
    url: {
      type: "string",
      description: "The emulator's root URL, asked as is (default: the server other commands use, see --target)",
      valueHint: "URL",
    },
    target: {
      type: "string",
      description:
        "The emulator: its URL (env EXT_BASE_URL), or `local` (the default: env EXT_LOCAL_URL, else the `ext serve` of the nearest .ext-data in this folder or above, verified first)",
      valueHint: "local|URL",
    },
    timeout: { type: "string", description: "Give up after this many milliseconds (default 2000)", valueHint: "MS" },
  },
  async run({ args }) {
    const timeoutMs = Number(args.timeout ?? 2000);
    if (!Number.isInteger(timeoutMs) || timeoutMs < 1) fail(`--timeout must be a positive whole number of ms`, 2);
    const endpoints = await endpointsOf(args, timeoutMs);
    const root = endpoints.root;
    let problem: string;
    try {
      const health = adminClient(endpoints, null);
      const { data, response: res } = await health.GET("/healthz", { signal: AbortSignal.timeout(timeoutMs) });
      if (res.ok && data?.status === "ok") {
        out(`ok: ${root}`);
        return;
      }
      problem = `${root}/healthz answered ${res.status}`;
    } catch (e) {
      // An emulator answers /healthz itself: a redirect is some other server (never followed).
      if (e instanceof RedirectAnswerError)
        problem = `${root}/healthz answered a redirect (${e.status} to ${e.location || "nowhere"}): not an emulator`;
      else if ((e as Error).name === "TimeoutError")
        problem = `no emulator answered at ${root}/healthz within ${timeoutMs} ms (--timeout)`;
      else problem = `no emulator answered at ${root}/healthz (${(e as Error).message})`;
    }
    // What another server answered (a Location, an error's text) is escaped before it reaches the terminal.
    fail(printable(problem));
  },
});
