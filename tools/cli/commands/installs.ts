import { defineCommand } from "citty";
import type { InstallStatistics } from "../../../client";
import { MAX_INSTALLS_PER_CALL } from "../../../common/api-rules";
import { errorJson } from "../../calls/api-error";
import { UsageError } from "../../calls/usage-error";
import { parseClientEnv } from "../../config";
import { onlyWith, pickAction, wholeNumber } from "../lib/actions";
import { controlCalls, developerCalls } from "../lib/calls";
import { fieldLines, tableLines } from "../lib/table";
import { extensionArg, jsonArg, resolveApi, resolveServer, targetArgs } from "../lib/target";
import { out } from "../output";

const ACTIONS = ["show", "add"] as const;
type Action = (typeof ACTIONS)[number];

const installsArgs = {
  action: {
    type: "positional",
    required: true,
    description: "show --extension ID | add --extension ID --count N [--version VERSION_ID]",
  },
  extension: extensionArg,
  count: { type: "string", description: "How many installs to record (add; default 1)", valueHint: "N" },
  version: {
    type: "string",
    description: "The approved version installed (add; default the current version)",
    valueHint: "VERSION_ID",
  },
  ...targetArgs,
  json: jsonArg,
} as const;

function statsLines(extensionId: string, s: InstallStatistics): string[] {
  const lines = fieldLines([
    ["extension", extensionId],
    ["total", String(s.total)],
    ["active", String(s.active)],
  ]);
  const rows = Object.entries(s.byVersion).map(([versionId, n]) => [versionId, String(n)]);
  if (rows.length > 0) lines.push("", ...tableLines(["VERSION", "ACTIVE"], rows));
  return lines;
}

export default defineCommand({
  meta: {
    name: "installs",
    description: "Show an extension's install statistics; record installs as end users would (control plane)",
  },
  args: installsArgs,
  async run({ args }) {
    const action = pickAction<Action>("installs", args.action, ACTIONS);
    onlyWith("installs", action, args, { count: ["add"], version: ["add"], "api-key": ["show"] });
    const extensionId = args.extension || parseClientEnv().extensionId;
    if (!extensionId) throw new UsageError("no extension id: give --extension or set EXT_EXTENSION_ID");
    const count = args.count === undefined ? 1 : wholeNumber("count", args.count, 1, MAX_INSTALLS_PER_CALL);
    const json = Boolean(args.json);
    try {
      const stats =
        action === "show"
          ? await developerCalls(await resolveApi(args)).installs(extensionId)
          : await controlCalls(await resolveServer(args)).addInstalls(extensionId, {
              count,
              ...(args.version ? { versionId: args.version } : {}),
            });
      if (json) return out(JSON.stringify(stats));
      for (const line of statsLines(extensionId, stats)) out(line);
    } catch (e) {
      if (json) out(JSON.stringify({ error: errorJson(e) }));
      throw e;
    }
  },
});
