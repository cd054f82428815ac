/**
 * One rule for finding the emulator, the developer key and the admin token, the same in every command:
 *
 *  - the server: `--target` (`local`, the root URL, the API base …/developer/v1 or the control plane
 *    …/_emulator), else EXT_BASE_URL (what `ext exec` sets), else `local`: EXT_LOCAL_URL, else the
 *    `ext serve` of this folder's data directory (its server.json, if that process is alive and answers
 *    /healthz), else http://127.0.0.1:4780;
 *  - the key: `--api-key`, else EXT_API_KEY, else the emulator's own key for its first account, asked of
 *    its control plane the way the dashboard gets one (held by the server, never written to a file), with a
 *    line on stderr saying which account the command acts as;
 *  - the admin token: `--admin-token`, else EXT_ADMIN_TOKEN (only a non-loopback emulator needs one).
 */
import { lstatSync, readFileSync } from "node:fs";
import { type ClientEnv, DEFAULT_HOST, DEFAULT_PORT, parseClientEnv } from "../../src/config";
import { serverFilePath } from "../../src/server-file";
import { ApiRequestError, type Endpoints, endpointsFromAnyUrl, requestJson } from "./http";
import { UsageError } from "./runner";

export const targetArgs = {
  target: {
    type: "string",
    description:
      "The emulator: `local` (env EXT_LOCAL_URL, else this folder's `ext serve`, else 127.0.0.1:4780) or its URL, API base or /_emulator URL (env EXT_BASE_URL)",
    valueHint: "local|URL",
  },
  "api-key": {
    type: "string",
    description: "Developer API key (env EXT_API_KEY; else the emulator's key for its first account)",
    valueHint: "KEY",
  },
  "admin-token": {
    type: "string",
    description: "Control-plane token of a non-loopback emulator (env EXT_ADMIN_TOKEN)",
    valueHint: "TOKEN",
  },
} as const;

export const extensionArg = {
  type: "string",
  description: "Extension id (env EXT_EXTENSION_ID)",
  valueHint: "ID",
} as const;

export const jsonArg = { type: "boolean", description: "Print the API's JSON answer on stdout, nothing else" } as const;

export interface TargetFlags {
  target?: string;
  "api-key"?: string;
  "admin-token"?: string;
}

export interface ServerTarget {
  endpoints: Endpoints;
  adminToken: string | null;
}

export interface ApiTarget extends ServerTarget {
  apiKey: string;
}

/** How long a found server.json's server may take to answer /healthz before it is taken for a stale file. */
const HEALTH_TIMEOUT_MS = 2_000;

/** The server a command talks to (no key needed: the control plane, `ext logs`, `ext seed --target`). */
export async function resolveServer(flags: TargetFlags, env: ClientEnv = parseClientEnv()): Promise<ServerTarget> {
  const adminToken = flags["admin-token"] || env.adminToken;
  if (flags.target !== undefined) {
    if (!flags.target) throw new UsageError("--target needs `local` or a URL");
    if (flags.target !== "local") return { endpoints: endpointsFromAnyUrl(flags.target), adminToken };
  } else if (env.baseUrl) {
    return { endpoints: endpointsFromAnyUrl(env.baseUrl), adminToken };
  }
  return { endpoints: endpointsFromAnyUrl(await localUrl(env)), adminToken };
}

/** The server and a developer key for it. */
export async function resolveApi(flags: TargetFlags, env: ClientEnv = parseClientEnv()): Promise<ApiTarget> {
  const server = await resolveServer(flags, env);
  const given = flags["api-key"] || env.apiKey;
  if (given) return { ...server, apiKey: given };
  return { ...server, apiKey: await accountKey(server) };
}

/** What `local` means: EXT_LOCAL_URL, else this folder's running `ext serve`, else the default address. */
async function localUrl(env: ClientEnv): Promise<string> {
  if (env.localUrl !== null) return env.localUrl;
  return (await runningServer(env.dataDir)) ?? `http://${DEFAULT_HOST}:${DEFAULT_PORT}`;
}

/**
 * The URL in the data directory's server.json, if it is this user's own file (not writable by others, not a
 * link), names a live process and that server answers /healthz; null otherwise (no server, or a stale file).
 */
export async function runningServer(dataDir: string): Promise<string | null> {
  const path = serverFilePath(dataDir);
  let info: { url?: unknown; pid?: unknown };
  try {
    const stat = lstatSync(path);
    if (!stat.isFile() || (stat.mode & 0o022) !== 0) return null;
    if (process.getuid && stat.uid !== process.getuid()) return null;
    info = JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return null;
  }
  if (typeof info.url !== "string" || !Number.isSafeInteger(info.pid) || (info.pid as number) <= 0) return null;
  let url: URL;
  try {
    url = new URL(info.url);
  } catch {
    return null;
  }
  if (url.protocol !== "http:" || !processAlive(info.pid as number)) return null;
  try {
    await requestJson(`${url.origin}/healthz`, { retries: 0, signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS) });
    return url.origin;
  } catch {
    return null;
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    // ESRCH: gone. EPERM: another user's process, so not the server that wrote this user's file.
    return false;
  }
}

interface AccountSummary {
  id: string;
  name: string;
}

/**
 * The emulator's key for its first account (the one the dashboard uses for it), said on stderr. A server
 * that is not an emulator, or refuses the control plane, leaves the user to give a key.
 */
async function accountKey({ endpoints, adminToken }: ServerTarget): Promise<string> {
  const noKey = (why: string) =>
    new UsageError(`no API key: give --api-key or set EXT_API_KEY (${endpoints.root} gave none: ${why})`);
  let first: AccountSummary | undefined;
  try {
    const { accounts } = await requestJson<{ accounts: AccountSummary[] }>(`${endpoints.adminUrl}/accounts`, {
      token: adminToken,
      retries: 0,
    });
    first = accounts[0];
  } catch (e) {
    if (e instanceof ApiRequestError) {
      const hint = e.status === 401 && !adminToken ? "; its control plane needs --admin-token or EXT_ADMIN_TOKEN" : "";
      throw noKey(`${e.message}${hint}`);
    }
    throw e;
  }
  if (!first)
    throw new UsageError(
      `the emulator at ${endpoints.root} has no account yet: create one in its dashboard (${endpoints.root}/) or load the demo with \`ext seed demo --target ${endpoints.root}\``,
    );
  let plaintext: string;
  try {
    ({ plaintext } = await requestJson<{ plaintext: string }>(
      `${endpoints.adminUrl}/accounts/${encodeURIComponent(first.id)}/dashboard-key`,
      { method: "POST", token: adminToken, retries: 0 },
    ));
  } catch (e) {
    if (e instanceof ApiRequestError) throw noKey(e.message);
    throw e;
  }
  process.stderr.write(`using account ${first.id} (${first.name}) on ${endpoints.root}\n`);
  return plaintext;
}

/** An error as --json prints it: the server's envelope as it came (it carries its HTTP status), else the message. */
export function errorJson(e: unknown): unknown {
  if (e instanceof ApiRequestError) return e.body ?? { message: e.message, status: e.status };
  return { message: (e as Error)?.message ?? String(e) };
}
