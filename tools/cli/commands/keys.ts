import { defineCommand } from "citty";
import type { ApiKeyCreate } from "../../../client";
import { SCOPES } from "../../../common/scopes";
import { printable } from "../../../common/text/printable";
import { errorJson } from "../../calls/api-error";
import { UsageError } from "../../calls/usage-error";
import { onlyWith, pickAction } from "../lib/actions";
import { controlCalls } from "../lib/calls";
import { cell, tableLines } from "../lib/table";
import { jsonArg, resolveServer, targetArgs } from "../lib/target";
import { err, out } from "../output";

const ACTIONS = ["create", "list"] as const;
type Action = (typeof ACTIONS)[number];

const { target, "admin-token": adminToken } = targetArgs;

/**
 * `ext keys`: an account's developer API keys through the control plane, as the dashboard's Keys page does.
 * `create` prints the new key alone on stdout, even to a pipe (`EXT_API_KEY=$(ext keys create)`): the key is
 * what was asked for. It is the shortest way to a key when `ext serve`'s output was not a terminal.
 */
export default defineCommand({
  meta: {
    name: "keys",
    description: "Create or list an account's developer API keys (control plane); create prints the new key",
  },
  args: {
    action: { type: "positional", required: true, description: "create | list" },
    account: {
      type: "string",
      description: "The account (default: the emulator's first account, as the other commands act)",
      valueHint: "ID",
    },
    name: { type: "string", description: "The new key's name (create; default: cli)", valueHint: "TEXT" },
    scopes: {
      type: "string",
      description: `The new key's scopes, comma-separated (create; default: *): ${SCOPES.join(", ")}`,
      valueHint: "LIST",
    },
    target,
    "admin-token": adminToken,
    json: jsonArg,
  },
  async run({ args }) {
    const action = pickAction<Action>("keys", args.action, ACTIONS);
    onlyWith("keys", action, args, { name: ["create"], scopes: ["create"] });
    const json = Boolean(args.json);
    const scopes = parseScopes(args.scopes);
    try {
      const calls = controlCalls(await resolveServer(args));
      const accountId = args.account || (await firstAccount(calls));
      if (action === "list") {
        const { apiKeys } = await calls.listKeys(accountId);
        if (json) return out(JSON.stringify({ apiKeys }));
        for (const line of tableLines(
          ["ID", "NAME", "PREFIX", "SCOPES", "CREATED", "STATE"],
          apiKeys.map((k) => [
            k.id,
            k.name,
            `${k.keyPrefix}…`,
            k.scopes.join(","),
            k.createdAt,
            cell(k.revokedAt ? "revoked" : "active"),
          ]),
        ))
          out(line);
        return;
      }
      const created = await calls.createKey(accountId, { name: args.name || "cli", scopes });
      if (json) return out(JSON.stringify(created));
      out(printable(created.plaintext));
      err(
        `created key "${printable(created.apiKey.name)}" for account ${printable(accountId)} (scopes ${printable(created.apiKey.scopes.join(", "))}): shown this once`,
      );
    } catch (e) {
      if (json && !(e instanceof UsageError)) out(JSON.stringify({ error: errorJson(e) }));
      throw e;
    }
  },
});

function parseScopes(given: string | undefined): ApiKeyCreate["scopes"] {
  if (given === undefined) return ["*"];
  const scopes = given.split(",").map((s) => s.trim());
  for (const scope of scopes)
    if (!(SCOPES as readonly string[]).includes(scope))
      throw new UsageError(`--scopes: "${scope}" is not a scope (use ${SCOPES.join(", ")})`);
  return scopes as ApiKeyCreate["scopes"];
}

async function firstAccount(calls: ReturnType<typeof controlCalls>): Promise<string> {
  const first = (await calls.listAccounts()).accounts[0];
  if (!first) throw new UsageError("the emulator has no account yet: give --account, or load one (ext seed demo)");
  return first.id;
}
