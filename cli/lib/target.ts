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
import { type Account, ApiCallError } from "../../client";
import { type ClientEnv, DEFAULT_HOST, DEFAULT_PORT, parseClientEnv } from "../../src/config";
import { printable } from "../../src/printable";
import { readServerFile, serverFilePath } from "../../src/server-file";
import { err } from "../output";
import { headline } from "./api-error";
import { adminClient, call, type Endpoints, endpointsFromAnyUrl } from "./http";
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
  return { endpoints: await localEndpoints(env), adminToken };
}

/** The server and a developer key for it. */
export async function resolveApi(flags: TargetFlags, env: ClientEnv = parseClientEnv()): Promise<ApiTarget> {
  const server = await resolveServer(flags, env);
  const given = flags["api-key"] || env.apiKey;
  if (given) return { ...server, apiKey: given };
  return { ...server, apiKey: await accountKey(server) };
}

/** What `local` means: EXT_LOCAL_URL, else this folder's running `ext serve`, else the default address. */
async function localEndpoints(env: ClientEnv): Promise<Endpoints> {
  if (env.localUrl !== null) return endpointsFromAnyUrl(env.localUrl);
  const running = await runningServer(env.dataDir);
  if (running) return endpointsFromAnyUrl(running);
  return {
    ...endpointsFromAnyUrl(`http://${DEFAULT_HOST}:${DEFAULT_PORT}`),
    unreachableHint: `no running \`ext serve\` was found for this folder (none answers from ${serverFilePath(env.dataDir)}): start one with \`${env.command} serve\`, or give --target URL`,
  };
}

/**
 * The URL in the data directory's server.json, if it is this user's own file (not writable by others, not a
 * link), names a live process and that server answers /healthz; null otherwise (no server, or a stale file).
 */
export async function runningServer(dataDir: string): Promise<string | null> {
  const info = readServerFile(dataDir);
  if (!info || !processAlive(info.pid)) return null;
  try {
    const health = adminClient(endpointsFromAnyUrl(info.url), null);
    await call(() => health.GET("/healthz", { signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS) }), { retries: 0 });
    return info.url;
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

/**
 * The emulator's key for its first account (the one the dashboard uses for it), said on stderr. A server
 * that is not an emulator, or refuses the control plane, leaves the user to give a key.
 */
async function accountKey({ endpoints, adminToken }: ServerTarget): Promise<string> {
  const noKey = (why: string) =>
    new UsageError(`no API key: give --api-key or set EXT_API_KEY (${endpoints.root} gave none: ${why})`);
  const admin = adminClient(endpoints, adminToken);
  let first: Account | undefined;
  try {
    first = (await call(() => admin.GET("/_emulator/accounts"), { retries: 0 })).accounts[0];
  } catch (e) {
    if (e instanceof ApiCallError) {
      const hint = e.status === 401 && !adminToken ? "; its control plane needs --admin-token or EXT_ADMIN_TOKEN" : "";
      throw noKey(`${headline(e)}${hint}`);
    }
    throw e;
  }
  if (!first)
    throw new UsageError(
      `the emulator at ${endpoints.root} has no account yet: create one in its dashboard (${endpoints.root}/) or load the demo with \`ext seed demo --target ${endpoints.root}\``,
    );
  const accountId = first.id;
  let plaintext: string;
  try {
    ({ plaintext } = await call(
      () => admin.POST("/_emulator/accounts/{accountId}/dashboard-key", { params: { path: { accountId } } }),
      { retries: 0 },
    ));
  } catch (e) {
    if (e instanceof ApiCallError) throw noKey(headline(e));
    throw e;
  }
  err(`using account ${printable(first.id)} (${printable(first.name)}) on ${endpoints.root}`);
  return plaintext;
}
