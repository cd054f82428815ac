import { defineCommand } from "citty";
import { errorJson } from "../../calls/api-error";
import { UsageError } from "../../calls/usage-error";
import { parseClientEnv } from "../../config";
import { idFor, onlyWith, pickAction } from "../lib/actions";
import { controlCalls, developerCalls } from "../lib/calls";
import { cell, fieldLines, tableLines } from "../lib/table";
import { extensionArg, jsonArg, resolveApi, resolveServer, targetArgs } from "../lib/target";
import { out } from "../output";

const ACTIONS = ["list", "approve", "reject"] as const;
type Action = (typeof ACTIONS)[number];

const versionsArgs = {
  action: {
    type: "positional",
    required: true,
    description: "list --extension ID | approve VERSION_ID | reject VERSION_ID --reason TEXT",
  },
  id: {
    type: "positional",
    required: false,
    description: "The version's id (approve, reject)",
    valueHint: "VERSION_ID",
  },
  extension: { ...extensionArg, description: "Extension id (list) (env EXT_EXTENSION_ID)" },
  reason: {
    type: "string",
    description: "Why the version is rejected, shown to the developer (reject)",
    valueHint: "TEXT",
  },
  ...targetArgs,
  json: jsonArg,
} as const;

export default defineCommand({
  meta: {
    name: "versions",
    description: "List an extension's versions; approve or reject one as the reviewer would (control plane)",
  },
  args: versionsArgs,
  async run({ args }) {
    const action = pickAction<Action>("versions", args.action, ACTIONS);
    onlyWith("versions", action, args, { extension: ["list"], reason: ["reject"], "api-key": ["list"] });
    const id = idFor("versions", action, args.id, "VERSION_ID", action !== "list");
    const json = Boolean(args.json);
    const extensionId = args.extension || parseClientEnv().extensionId;
    if (action === "list" && !extensionId)
      throw new UsageError("no extension id: give --extension or set EXT_EXTENSION_ID");
    if (action === "reject" && !args.reason) throw new UsageError("`ext versions reject` needs --reason TEXT");
    try {
      if (action === "list") {
        const list = await developerCalls(await resolveApi(args)).listVersions(extensionId!);
        if (json) return out(JSON.stringify(list));
        if (list.versions.length === 0)
          return out(`no versions of ${extensionId} yet: ext deploy DIR --extension ${extensionId} --version 1.0.0`);
        const rows = list.versions.map((v) => [v.id, v.version, v.status, v.submittedAt, cell(v.rejectReason)]);
        for (const line of tableLines(["ID", "VERSION", "STATUS", "SUBMITTED", "REASON"], rows)) out(line);
        return;
      }
      const control = controlCalls(await resolveServer(args));
      const reviewed =
        action === "approve" ? await control.approveVersion(id) : await control.rejectVersion(id, args.reason!);
      if (json) return out(JSON.stringify(reviewed));
      const { version: v, extension: e } = reviewed;
      const fields: [string, string][] = [
        ["version", `${v.id} (${v.version})`],
        ["status", v.status],
        ["extension", `${e.id}: ${e.status}, current version ${cell(e.currentVersionId)}`],
      ];
      if (v.rejectReason) fields.push(["reason", v.rejectReason]);
      for (const line of fieldLines(fields)) out(line);
    } catch (e) {
      if (json) out(JSON.stringify({ error: errorJson(e) }));
      throw e;
    }
  },
});
