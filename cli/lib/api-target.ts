/**
 * The flags every command that calls the developer API shares (`ext deploy`, `ext secrets`): which
 * extension, which key, which server, and --json. Read the same way everywhere, so the conventions and
 * their usage errors (exit 2) cannot drift apart.
 */
import { parseClientEnv } from "../../src/config";
import { ApiRequestError, type Endpoints, endpointsFromBaseUrl } from "./http";
import { UsageError } from "./runner";

export const apiTargetArgs = {
  extension: {
    type: "string",
    description: "Extension id (env EXT_EXTENSION_ID; else extensionId in manifest.json)",
    valueHint: "ID",
  },
  "api-key": { type: "string", description: "Developer API key (env EXT_API_KEY)", valueHint: "KEY" },
  target: {
    type: "string",
    description:
      "`local` (env EXT_LOCAL_URL, default http://127.0.0.1:4780/developer/v1) or a base URL ending in /developer/v1",
    valueHint: "local|URL",
  },
  json: { type: "boolean", description: "Print one JSON object (progress and warnings stay on stderr)" },
} as const;

export interface ApiTarget {
  apiKey: string;
  endpoints: Endpoints;
  /** --extension, else EXT_EXTENSION_ID, else null (deploy may still read manifest.json). */
  extensionId: string | null;
  json: boolean;
}

export function resolveApiTarget(args: {
  extension?: string;
  "api-key"?: string;
  target?: string;
  json?: boolean;
}): ApiTarget {
  const env = parseClientEnv();
  const apiKey = args["api-key"] || env.apiKey;
  if (!apiKey) throw new UsageError("no API key: give --api-key or set EXT_API_KEY");
  const target = args.target ?? "local";
  if (!target) throw new UsageError("--target needs `local` or a URL");
  const endpoints = endpointsFromBaseUrl(target === "local" ? env.localUrl : target);
  return { apiKey, endpoints, extensionId: args.extension || env.extensionId, json: Boolean(args.json) };
}

/** An error as --json prints it: the server's envelope as it came (it carries its HTTP status), else the message. */
export function errorJson(e: unknown): unknown {
  if (e instanceof ApiRequestError) return e.body ?? { message: e.message, status: e.status };
  return { message: (e as Error)?.message ?? String(e) };
}
