import { defineCommand } from "citty";
import type { LimitRequest, LimitValues } from "../../../client";
import { REASON_MIN, reasonLongEnough } from "../../../common/api-rules";
import { printable } from "../../../common/text/printable";
import { checkLimitValues, isLimitKey, LIMITS } from "../../../server";
import { errorJson } from "../../calls/api-error";
import { adminClient, call } from "../../calls/http";
import { UsageError } from "../../calls/usage-error";
import { parseClientEnv } from "../../config";
import { onlyWith, pickAction } from "../lib/actions";
import { developerCalls } from "../lib/calls";
import { closest } from "../lib/did-you-mean";
import { humanValue, usageOf } from "../lib/limits";
import { cell, fieldLines, tableLines } from "../lib/table";
import { extensionArg, jsonArg, resolveApi, resolveServer, type ServerTarget, targetArgs } from "../lib/target";
import { err, out } from "../output";

const ACTIONS = ["show", "request", "requests"] as const;
type Action = (typeof ACTIONS)[number];
const SCOPES = ["account", "extension"] as const;
const STATUSES = ["pending", "approved", "rejected"] as const;

export const limitsArgs = {
  action: {
    type: "positional",
    required: true,
    description: "show --extension ID | request --limit KEY=VALUE --reason TEXT | requests",
  },
  extension: {
    ...extensionArg,
    description: "Extension id (env EXT_EXTENSION_ID): show; request with scope extension",
  },
  limit: {
    type: "string",
    description: "request: the limit and the value wanted, KEY=VALUE; several comma-separated or repeated",
    valueHint: "KEY=N",
  },
  reason: {
    type: "string",
    description: `request: why, at least ${REASON_MIN} characters (the API's rule)`,
    valueHint: "TEXT",
  },
  scope: {
    type: "string",
    description: "request: account (all its extensions) or extension (default: extension with --extension)",
    valueHint: "SCOPE",
  },
  account: {
    type: "string",
    description: "request, requests: the developer account (default: the emulator's only account)",
    valueHint: "ID",
  },
  status: { type: "string", description: "requests: only pending, approved or rejected ones", valueHint: "STATUS" },
  ...targetArgs,
  json: jsonArg,
} as const;

/**
 * `--limit a=1,b=2 --limit c=3` → {a: 1, b: 2, c: 3}. The key is checked before the value, so a misspelt key (a
 * camelCase one too) is named as such, with a guess; then the value must be a whole number; the API's value rules apply.
 */
export function parseLimitFlags(given: string[]): LimitValues {
  const parts = given.flatMap((g) => g.split(","));
  const values: LimitValues = {};
  const keys = LIMITS.map((l) => l.key);
  for (const part of parts.map((p) => p.trim()).filter(Boolean)) {
    const eq = part.indexOf("=");
    if (eq <= 0) throw new UsageError(`--limit takes KEY=VALUE, e.g. max_api_keys=40 (got "${printable(part)}")`);
    const [key, value] = [part.slice(0, eq).trim(), part.slice(eq + 1).trim()];
    if (!isLimitKey(key)) {
      // camelCase humps become snake_case words (maxApiKeys → max_api_keys); closest() ignores case.
      const guess = closest(key.replace(/([a-z0-9])([A-Z])/g, "$1_$2"), keys);
      throw new UsageError(
        `--limit: ${printable(key)} is not a known limit key${guess ? `; did you mean ${guess}?` : " (see `ext limits show`)"}`,
      );
    }
    if (!/^\d+$/.test(value))
      throw new UsageError(`--limit: ${key} takes a whole number, e.g. ${key}=40 (got "${printable(value)}")`);
    values[key] = Number(value);
  }
  if (Object.keys(values).length === 0)
    throw new UsageError("`ext limits request` needs --limit KEY=VALUE (the limit and the value wanted)");
  const problems = checkLimitValues(values, "");
  if (problems.length > 0) throw new UsageError(`--limit: ${problems.map((p) => p.message).join("; ")}`);
  return values;
}

/** Every value of a flag given more than once (`--limit a=1 --limit b=2`), in order; the parser keeps only the last. */
function repeated(flag: string, rawArgs: string[]): string[] {
  const values: string[] = [];
  for (let i = 0; i < rawArgs.length && rawArgs[i] !== "--"; i++) {
    const a = rawArgs[i]!;
    if (a === `--${flag}` && rawArgs[i + 1] !== undefined) values.push(rawArgs[++i]!);
    else if (a.startsWith(`--${flag}=`)) values.push(a.slice(flag.length + 3));
  }
  return values;
}

/** The account a request is for: --account, else the emulator's one account. */
async function accountFor(server: ServerTarget, given: string | undefined): Promise<string> {
  if (given) return given;
  const admin = adminClient(server.endpoints, server.adminToken);
  const { accounts } = await call(() => admin.GET("/_emulator/accounts"));
  if (accounts.length === 1) return accounts[0]!.id;
  if (accounts.length === 0) throw new UsageError(`the emulator at ${server.endpoints.root} has no account yet`);
  throw new UsageError(
    `the emulator has ${accounts.length} accounts (${accounts.map((a) => a.id).join(", ")}): give --account`,
  );
}

const limitsText = (values: LimitValues) =>
  Object.entries(values)
    .map(([k, v]) => `${k}=${v}`)
    .join(", ");

function requestFields(r: LimitRequest): [string, string][] {
  return [
    ["id", r.id],
    ["account", r.accountId],
    ["scope", r.scope === "extension" ? `extension ${r.extensionId}` : "account"],
    ["limits", limitsText(r.limits)],
    ["reason", r.reason],
    ["status", r.status],
    ["created", r.createdAt],
  ];
}

async function show(args: { extension?: string; json?: boolean } & Parameters<typeof resolveApi>[0]) {
  const extensionId = args.extension || parseClientEnv().extensionId;
  if (!extensionId) throw new UsageError("no extension id: give --extension or set EXT_EXTENSION_ID");
  const body = await developerCalls(await resolveApi(args)).limits(extensionId);
  if (args.json) return out(JSON.stringify(body));
  const rows = Object.values(body.limits).flatMap((category) =>
    Object.entries(category).map(([key, l]) => {
      const used = usageOf(body, key);
      return [
        key,
        humanValue(l.value, l.unit),
        used === null ? "-" : humanValue(used, l.unit),
        l.source,
        l.hardMax === null ? "-" : humanValue(l.hardMax, l.unit),
      ];
    }),
  );
  for (const line of tableLines(["LIMIT", "VALUE", "USED", "SOURCE", "HARD MAX"], rows)) out(line);
  err(
    `to ask for more: ${parseClientEnv().command} limits request --extension ${extensionId} --limit KEY=VALUE --reason TEXT`,
  );
}

export default defineCommand({
  meta: {
    name: "limits",
    description: "Show an extension's limits with usage; request an increase and list the requests",
  },
  args: limitsArgs,
  async run({ args, rawArgs }) {
    const action = pickAction<Action>("limits", args.action, ACTIONS);
    onlyWith("limits", action, args, {
      limit: ["request"],
      reason: ["request"],
      scope: ["request"],
      account: ["request", "requests"],
      status: ["requests"],
      extension: ["show", "request"],
    });
    const json = Boolean(args.json);
    try {
      if (action === "show") return await show(args);
      const server = await resolveServer(args);
      const admin = adminClient(server.endpoints, server.adminToken);
      if (action === "requests") {
        if (args.status !== undefined && !(STATUSES as readonly string[]).includes(args.status))
          throw new UsageError(`--status must be one of ${STATUSES.join(", ")} (got "${args.status}")`);
        const query = {
          ...(args.account ? { accountId: args.account } : {}),
          ...(args.status ? { status: args.status as (typeof STATUSES)[number] } : {}),
        };
        const list = await call(() => admin.GET("/_emulator/limit-requests", { params: { query } }));
        if (json) return out(JSON.stringify(list));
        if (list.limitRequests.length === 0) return out("no limit increase requests");
        const rows = list.limitRequests.map((r) => [
          r.id,
          r.accountId,
          r.scope === "extension" ? cell(r.extensionId) : "account",
          limitsText(r.limits),
          r.status,
          r.createdAt,
          cell(r.decisionReason),
        ]);
        for (const line of tableLines(["ID", "ACCOUNT", "SCOPE", "LIMITS", "STATUS", "CREATED", "DECISION"], rows))
          out(line);
        return;
      }
      // request: every rule the API holds the body to is checked before anything is sent.
      const limits = parseLimitFlags(repeated("limit", rawArgs));
      const reason = args.reason ?? "";
      if (!reasonLongEnough(reason))
        throw new UsageError(
          `--reason must be at least ${REASON_MIN} characters, not counting surrounding spaces (got ${reason.trim().length}): say why the extension needs more`,
        );
      const extensionId = args.extension || parseClientEnv().extensionId;
      const scope = args.scope ?? (extensionId ? "extension" : "account");
      if (!(SCOPES as readonly string[]).includes(scope))
        throw new UsageError(`--scope must be account or extension (got "${scope}")`);
      if (scope === "extension" && !extensionId)
        throw new UsageError("--scope extension needs --extension ID (or EXT_EXTENSION_ID)");
      const accountId = await accountFor(server, args.account);
      const body =
        scope === "extension"
          ? { accountId, scope: "extension" as const, extensionId: extensionId!, limits, reason }
          : { accountId, scope: "account" as const, limits, reason };
      const { limitRequest } = await call(() => admin.POST("/_emulator/limit-requests", { body }));
      if (json) return out(JSON.stringify({ limitRequest }));
      for (const line of fieldLines(requestFields(limitRequest))) out(line);
      err(
        `it applies once an admin approves it (the dashboard's Admin page, Limit requests); follow it with \`${parseClientEnv().command} limits requests\``,
      );
    } catch (e) {
      if (json && !(e instanceof UsageError)) out(JSON.stringify({ error: errorJson(e) }));
      throw e;
    }
  },
});
