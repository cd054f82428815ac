import { defineCommand } from "citty";
import { LOGIN_CODE_TTL_TEXT } from "../../../common/dashboard-links";
import { printable } from "../../../common/text/printable";
import { errorJson } from "../../calls/api-error";
import { adminClient, call } from "../../calls/http";
import { UsageError } from "../../calls/usage-error";
import { jsonArg, resolveServer, targetArgs } from "../lib/target";
import { err, out } from "../output";

const { target, "admin-token": adminToken } = targetArgs;

/**
 * `ext dashboard`: a fresh one-time login link for the dashboard of the server found from this folder
 * (verified first), or of one named by --target with its admin token. The way to a link when `ext serve`'s
 * output was not a terminal (its banner then prints none) or its link was used or has expired.
 */
export default defineCommand({
  meta: {
    name: "dashboard",
    description: `Print a new one-time login link for the dashboard (works once, within ${LOGIN_CODE_TTL_TEXT})`,
  },
  args: { target, "admin-token": adminToken, json: jsonArg },
  async run({ args }) {
    const json = Boolean(args.json);
    try {
      const server = await resolveServer(args);
      const admin = adminClient(server.endpoints, server.adminToken);
      const link = await call(() => admin.POST("/_emulator/dashboard-login"), { retries: 0 });
      if (json) return out(JSON.stringify(link));
      out(printable(link.url));
      err(`open it in a browser: it works once, within ${LOGIN_CODE_TTL_TEXT}; any earlier link stops working`);
    } catch (e) {
      if (json && !(e instanceof UsageError)) out(JSON.stringify({ error: errorJson(e) }));
      throw e;
    }
  },
});
