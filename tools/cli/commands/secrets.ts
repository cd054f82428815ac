import { defineCommand } from "citty";
import { SECRET_NAME_PATTERN, SECRET_NAME_RE } from "../../../common/api-rules";
import { printable } from "../../../common/text/printable";
import { errorJson } from "../../calls/api-error";
import { apiClient, call } from "../../calls/http";
import { UsageError } from "../../calls/usage-error";
import { parseClientEnv } from "../../config";
import { readSecretValue } from "../lib/secret-value";
import { extensionArg, jsonArg, resolveApi, targetArgs } from "../lib/target";
import { out } from "../output";

const ACTIONS = ["list", "set", "delete"] as const;
type Action = (typeof ACTIONS)[number];

export const secretsArgs = {
  action: {
    type: "positional",
    required: true,
    description: "list | set NAME | delete NAME",
    valueHint: "list|set|delete",
  },
  name: {
    type: "positional",
    required: false,
    description: "The secret's name (set, delete): a letter or _, then letters, digits or _",
    valueHint: "NAME",
  },
  // Declared only so that a value given as an argument is refused without being echoed back.
  value: {
    type: "positional",
    required: false,
    description:
      "Refused if given (it would show in ps and shell history): `set` reads the value from standard input or a hidden prompt",
    valueHint: "never",
    sensitive: true,
  },
  extension: extensionArg,
  ...targetArgs,
  json: { ...jsonArg, description: "Print one JSON object" },
} as const;

export default defineCommand({
  meta: {
    name: "secrets",
    description: "List, set or delete an extension's secrets; values are write-only (wraps /extensions/:id/secrets)",
  },
  args: secretsArgs,
  async run({ args }) {
    const action = args.action as Action;
    if (!ACTIONS.includes(action))
      throw new UsageError(`unknown action "${args.action}": use list, set NAME or delete NAME`);
    if (args.value !== undefined) {
      // Not echoed: it may be the secret itself.
      throw new UsageError(
        "a secret value is never given as an argument (it would show in ps and shell history): `ext secrets set NAME` reads it from standard input or a hidden prompt",
      );
    }
    const name = args.name;
    if (action === "list" && name !== undefined) throw new UsageError("`ext secrets list` takes no NAME");
    if (action !== "list") {
      if (name === undefined) throw new UsageError(`\`ext secrets ${action}\` needs the secret's NAME`);
      // NAME=value is the habit of env files: the part after "=" is the secret, so nothing of it is echoed.
      if (name.includes("="))
        throw new UsageError(
          "give the secret's NAME alone (NAME=value is not accepted, and not echoed): `ext secrets set NAME` reads the value from standard input or a hidden prompt",
        );
      if (!SECRET_NAME_RE.test(name))
        throw new UsageError(
          `"${name}" is not a secret name (${SECRET_NAME_PATTERN}): a letter or _, then up to 127 letters, digits or _`,
        );
    }
    const json = Boolean(args.json);
    const extensionId = args.extension || parseClientEnv().extensionId;
    if (!extensionId) throw new UsageError("no extension id: give --extension or set EXT_EXTENSION_ID");
    // Read before any request: a prompt must not wait on a slow server, and a bad value sends nothing.
    const value = action === "set" ? await readSecretValue(name!) : null;
    const { apiKey, endpoints } = await resolveApi(args);
    const api = apiClient(endpoints, apiKey);
    const id = extensionId;
    try {
      if (action === "list") {
        const { keys } = await call(() =>
          api.GET("/developer/v1/extensions/{id}/secrets", { params: { path: { id } } }),
        );
        if (json) out(JSON.stringify({ ok: true, extensionId, keys }));
        else if (keys.length === 0) out(`no secrets for ${extensionId}`);
        else for (const key of keys) out(printable(key));
        return;
      }
      const path = { params: { path: { id, key: name! } } };
      if (action === "set")
        await call(() => api.PUT("/developer/v1/extensions/{id}/secrets/{key}", { ...path, body: { value: value! } }));
      else await call(() => api.DELETE("/developer/v1/extensions/{id}/secrets/{key}", path));
      if (json) out(JSON.stringify({ ok: true, extensionId, name, [action === "set" ? "stored" : "deleted"]: true }));
      else
        out(
          action === "set"
            ? `stored secret ${name} for ${extensionId} (the value is never shown)`
            : `deleted secret ${name} of ${extensionId}`,
        );
    } catch (e) {
      if (json) out(JSON.stringify({ ok: false, error: errorJson(e) }));
      throw e;
    }
  },
});
