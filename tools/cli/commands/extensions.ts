import { defineCommand } from "citty";
import type { Extension } from "../../../client";
import { NAME_MAX, SHORT_DESCRIPTION_MAX, VISIBILITIES } from "../../../common/api-rules";
import { printable } from "../../../common/text/printable";
import { shellQuote } from "../../../common/text/shell-quote";
import { errorJson } from "../../calls/api-error";
import { UsageError } from "../../calls/usage-error";
import { parseClientEnv } from "../../config";
import { idFor, onlyWith, pickAction } from "../lib/actions";
import { developerCalls } from "../lib/calls";
import { cell, fieldLines, tableLines } from "../lib/table";
import { jsonArg, resolveApi, targetArgs } from "../lib/target";
import { out } from "../output";

const ACTIONS = ["list", "create", "get", "update", "delete"] as const;
type Action = (typeof ACTIONS)[number];

const extensionsArgs = {
  action: { type: "positional", required: true, description: "list | create | get ID | update ID | delete ID" },
  id: { type: "positional", required: false, description: "The extension's id (get, update, delete)", valueHint: "ID" },
  name: {
    type: "string",
    description: `Name, 1–${NAME_MAX} characters (create: required; update)`,
    valueHint: "TEXT",
  },
  "short-description": {
    type: "string",
    description: `Short description, up to ${SHORT_DESCRIPTION_MAX} characters (create, update)`,
    valueHint: "TEXT",
  },
  description: { type: "string", description: "Description, Markdown (create, update)", valueHint: "TEXT" },
  pricing: { type: "string", description: "Pricing type; only `free` is accepted (create, update)", valueHint: "free" },
  visibility: { type: "string", description: `${VISIBILITIES.join(", ")} (update)`, valueHint: "VISIBILITY" },
  ...targetArgs,
  json: jsonArg,
} as const;

/** The writable fields given as flags, as the API names them; only those given. */
function bodyOf(args: {
  name?: string;
  "short-description"?: string;
  description?: string;
  pricing?: string;
  visibility?: string;
}) {
  const body: Record<string, unknown> = {};
  if (args.name !== undefined) body.name = args.name;
  if (args["short-description"] !== undefined) body.short_description = args["short-description"];
  if (args.description !== undefined) body.description = args.description;
  if (args.pricing !== undefined) body.pricing = { type: args.pricing };
  if (args.visibility !== undefined) {
    if (!(VISIBILITIES as readonly string[]).includes(args.visibility))
      throw new UsageError(`--visibility must be one of ${VISIBILITIES.join(", ")} (got "${args.visibility}")`);
    body.visibility = args.visibility;
  }
  return body;
}

const extensionFields = (e: Extension) =>
  fieldLines([
    ["id", e.id],
    ["name", e.name],
    ["slug", e.slug],
    ["status", e.status],
    ["visibility", e.visibility],
    ["pricing", e.pricing.type],
    ["short description", cell(e.short_description)],
    ["current version", cell(e.currentVersionId)],
    ["installs", String(e.installCount)],
    ["created", e.createdAt],
    ["updated", e.updatedAt],
  ]);

export default defineCommand({
  meta: { name: "extensions", description: "List, create, show, update or delete your extensions (/extensions)" },
  args: extensionsArgs,
  async run({ args }) {
    const action = pickAction<Action>("extensions", args.action, ACTIONS);
    onlyWith("extensions", action, args, {
      name: ["create", "update"],
      "short-description": ["create", "update"],
      description: ["create", "update"],
      pricing: ["create", "update"],
      visibility: ["update"],
    });
    const id = idFor("extensions", action, args.id, "extension ID", !["list", "create"].includes(action));
    const body = bodyOf(args);
    if (action === "create" && !args.name) throw new UsageError("`ext extensions create` needs --name");
    if (action === "update" && Object.keys(body).length === 0)
      throw new UsageError("`ext extensions update` needs at least one field to change (--name, --visibility, …)");
    const json = Boolean(args.json);
    const api = developerCalls(await resolveApi(args));
    try {
      if (action === "list") {
        const list = await api.listExtensions();
        if (json) return out(JSON.stringify(list));
        if (list.extensions.length === 0)
          return out("no extensions yet: create one with `ext extensions create --name NAME`");
        const rows = list.extensions.map((e) => [e.id, e.name, e.status, e.visibility, cell(e.currentVersionId)]);
        for (const line of tableLines(["ID", "NAME", "STATUS", "VISIBILITY", "CURRENT VERSION"], rows)) out(line);
      } else if (action === "create") {
        const created = await api.createExtension(body as { name: string });
        if (json) return out(JSON.stringify(created));
        const e = created.extension;
        for (const line of fieldLines([
          ["created", e.id],
          ["name", e.name],
          ["status", e.status],
        ]))
          out(line);
        // The id came from the server: quoted for a shell, escaped for the terminal.
        out(`next: ${parseClientEnv().command} deploy DIR --extension ${printable(shellQuote(e.id))} --version 1.0.0`);
      } else if (action === "get" || action === "update") {
        const e = action === "get" ? await api.getExtension(id) : await api.updateExtension(id, body);
        if (json) return out(JSON.stringify(e));
        for (const line of extensionFields(e)) out(line);
      } else {
        await api.deleteExtension(id);
        // 204: the API answers nothing, so --json prints nothing either; the exit code says it worked.
        if (!json) out(`deleted ${id}`);
      }
    } catch (e) {
      if (json) out(JSON.stringify({ error: errorJson(e) }));
      throw e;
    }
  },
});
