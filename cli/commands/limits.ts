import { defineCommand } from "citty";
import { parseClientEnv } from "../../src/config";
import { pickAction } from "../lib/actions";
import { errorJson } from "../lib/api-error";
import { developerCalls } from "../lib/calls";
import { UsageError } from "../lib/runner";
import { cell, tableLines } from "../lib/table";
import { extensionArg, jsonArg, resolveApi, targetArgs } from "../lib/target";
import { out } from "../output";

const limitsArgs = {
  action: { type: "positional", required: true, description: "show --extension ID" },
  extension: extensionArg,
  "api-key": targetArgs["api-key"],
  target: targetArgs.target,
  "admin-token": targetArgs["admin-token"],
  json: jsonArg,
} as const;

export default defineCommand({
  meta: {
    name: "limits",
    description: "Show the limits resolved for an extension, with usage (/extensions/:id/limits)",
  },
  args: limitsArgs,
  async run({ args }) {
    pickAction("limits", args.action, ["show"] as const);
    const extensionId = args.extension || parseClientEnv().extensionId;
    if (!extensionId) throw new UsageError("no extension id: give --extension or set EXT_EXTENSION_ID");
    const json = Boolean(args.json);
    try {
      const limits = await developerCalls(await resolveApi(args)).limits(extensionId);
      if (json) return out(JSON.stringify(limits));
      const rows = Object.values(limits.limits).flatMap((category) =>
        Object.entries(category).map(([key, l]) => [key, String(l.value), l.unit, l.source, cell(l.hardMax)]),
      );
      for (const line of tableLines(["LIMIT", "VALUE", "UNIT", "SOURCE", "HARD MAX"], rows)) out(line);
    } catch (e) {
      if (json) out(JSON.stringify({ error: errorJson(e) }));
      throw e;
    }
  },
});
