/**
 * One rule for finding the emulator, the developer key and the admin token, the same in every command:
 *
 *  - the server: `--target` (`local`, the root URL, the API base …/developer/v1 or the control plane
 *    …/_emulator), else EXT_BASE_URL (what `ext exec` sets), else `local`: EXT_LOCAL_URL, else the
 *    `ext serve` found from this folder (find-server.ts: the nearest data directory's server.json, verified
 *    by a challenge before anything is sent). No port is guessed: with none of these the command says how
 *    to start or name one;
 *  - the key: `--api-key`, else EXT_API_KEY, else the emulator's own key for its first account, asked of
 *    its control plane the way the dashboard gets one (held by the server, never written to a file), with a
 *    line on stderr saying which account the command acts as;
 *  - the admin token: a found server's, from its server.json; for a server named by URL, `--admin-token`,
 *    else EXT_ADMIN_TOKEN, and then that server must answer the same challenge for the address it was named
 *    by before anything is sent (a real platform is never given an admin token, so it is never challenged).
 */
import { type Account, ApiCallError } from "../../../client";
import { printable } from "../../../common/text/printable";
import { headline } from "../../calls/api-error";
import { adminClient, call, type Endpoints, endpointsFromAnyUrl } from "../../calls/http";
import { UsageError } from "../../calls/usage-error";
import { type ClientEnv, parseClientEnv } from "../../config";
import { err } from "../output";
import { findServer, verifyNamedServer } from "./find-server";

export const targetArgs = {
  target: {
    type: "string",
    description:
      "The emulator: its URL, API base or /_emulator URL (env EXT_BASE_URL), or `local` (the default: env EXT_LOCAL_URL, else the `ext serve` of the nearest .ext-data in this folder or above, verified before use)",
    valueHint: "local|URL",
  },
  "api-key": {
    type: "string",
    description:
      "Developer API key (env EXT_API_KEY; prefer it: a flag shows in `ps` to every local user; else the emulator's key for its first account)",
    valueHint: "KEY",
  },
  "admin-token": {
    type: "string",
    description:
      "Control-plane token of an emulator named by URL, which must prove it holds it before anything is sent (env EXT_ADMIN_TOKEN; prefer it: a flag shows in `ps`; a found `ext serve`'s is read from its data directory)",
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
  /** True for the server found from this folder (not named by URL): `--target local` reaches it again. */
  found?: boolean;
}

export interface ApiTarget extends ServerTarget {
  apiKey: string;
}

/**
 * The server a command talks to (no key needed: the control plane, `ext logs`, `ext seed --target`);
 * `timeoutMs` bounds each request to it (default EXT_REQUEST_TIMEOUT).
 */
export async function resolveServer(
  flags: TargetFlags,
  env: ClientEnv = parseClientEnv(),
  cwd: string = process.cwd(),
  timeoutMs?: number,
): Promise<ServerTarget> {
  const adminToken = flags["admin-token"] || env.adminToken;
  let named: string;
  if (flags.target !== undefined && flags.target !== "local") {
    if (!flags.target) throw new UsageError("--target needs `local` or a URL");
    named = flags.target;
  } else if (flags.target === undefined && env.baseUrl) {
    named = env.baseUrl;
  } else if (env.localUrl !== null) {
    named = env.localUrl;
  } else {
    const found = await findServer(env, cwd, timeoutMs);
    return { endpoints: found.endpoints, adminToken: found.adminToken, found: true };
  }
  // A named server is the user's choice; one that is to receive an admin token proves it holds it first,
  // and on every new connection after, unless the user vouches for it (it is reached at another address
  // than the one it can prove).
  const proven = Boolean(adminToken) && !env.trustTarget;
  const endpoints = endpointsFromAnyUrl(named, {
    proveWith: proven ? adminToken : null,
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  });
  if (proven) await verifyNamedServer(endpoints);
  return { endpoints, adminToken };
}

/** The server and a developer key for it. */
export async function resolveApi(
  flags: TargetFlags,
  env: ClientEnv = parseClientEnv(),
  cwd: string = process.cwd(),
): Promise<ApiTarget> {
  const server = await resolveServer(flags, env, cwd);
  const given = flags["api-key"] || env.apiKey;
  if (given) return { ...server, apiKey: given };
  return { ...server, apiKey: await accountKey(server) };
}

/**
 * The emulator's key for its first account (the one the dashboard uses for it), said on stderr. A server
 * that is not an emulator, or refuses the control plane, leaves the user to give a key.
 */
async function accountKey({ endpoints, adminToken, found }: ServerTarget): Promise<string> {
  const noKey = (why: string) =>
    new UsageError(`no API key: give --api-key or set EXT_API_KEY (${endpoints.root} gave none: ${why})`);
  const admin = adminClient(endpoints, adminToken);
  let first: Account | undefined;
  try {
    first = (await call(() => admin.GET("/_emulator/accounts"), { retries: 0 })).accounts[0];
  } catch (e) {
    // A 401 says itself what the control plane needs (api-error.ts).
    if (e instanceof ApiCallError) throw noKey(headline(e));
    throw e;
  }
  // The control plane let this command in: the same target (and token) loads the demo.
  const seedDemo = `ext seed demo --target ${found ? "local" : endpoints.root}`;
  if (!first)
    throw new UsageError(
      `the emulator at ${endpoints.root} has no account yet: create one in its dashboard (${endpoints.root}/) or load the demo with \`${seedDemo}\``,
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
