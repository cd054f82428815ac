/**
 * What both helpers build an `EmulatorConnection` from, so they check options and read `emulator.env` the
 * same way: only how they start a server and run a deploy differs (in process, or the binary).
 */
import type { SubmittedDeploy } from "./deploy-result";
import type { ConnectEmulatorOptions, DeployOptions, EmulatorConnection, EmulatorEnv } from "./emulator";
import { emulatorCalls } from "./emulator-methods";
import { StartEmulatorError } from "./errors";
import { createAdminClient, createApiClient, type FetchFunction } from "./index";

/** The options of StartEmulatorCommonOptions, in the order the refusal lists them. */
export const COMMON_START_OPTIONS = [
  "fixture",
  "dataDir",
  "port",
  "host",
  "rateLimits",
  "autoApproveMs",
  "logLevel",
  "profile",
] as const;

export const CONNECT_OPTIONS = ["adminToken"] as const;

/** A misspelt option is refused, never ignored: `{ ratelimits: true }` would otherwise pass silently. */
export function checkOptions(fn: string, options: object, known: readonly string[]): void {
  for (const key of Object.keys(options))
    if (!known.includes(key)) throw new TypeError(`${fn}: unknown option "${key}" (known: ${known.join(", ")})`);
}

/** Where an emulator is and how to authenticate to it. */
export interface EmulatorAddress {
  url: string;
  baseUrl: string;
  adminUrl: string;
  apiKey: string;
  adminToken: string;
}

export type DeployRunner = (
  /** The token too: the deploy proves the server before it sends the key. */
  at: { baseUrl: string; apiKey: string; adminToken: string },
  folder: string,
  options: DeployOptions,
) => Promise<SubmittedDeploy>;

/** How a helper's connection sends (emulatorConnection). */
export interface ConnectionOptions {
  /**
   * The helper's transport (tools/calls/helper-transport.ts): it proves the server on every new connection
   * before that connection carries the admin token or a key, and rejects, naming `who`, when it cannot.
   */
  fetch: FetchFunction;
  /** The helper's function, as a refusal names it. */
  who?: string;
  /** True once the helper stopped the server it started: a call then rejects and sends nothing. */
  stopped?: () => boolean;
}

/**
 * The typed clients and every call, for an emulator a helper started or one it reaches by its variables. The
 * server proves it holds the admin token on every connection before it carries the token or the key
 * (options.fetch); no redirect is followed; once a helper stopped its server, nothing is sent to whatever may
 * listen on its port.
 */
export function emulatorConnection(
  at: EmulatorAddress,
  deploy: DeployRunner,
  options: ConnectionOptions,
): EmulatorConnection {
  const who = options.who ?? "connectEmulator";
  const send = options.fetch;
  const open: FetchFunction = (request) =>
    options.stopped?.()
      ? Promise.reject(
          new StartEmulatorError(
            `${who}: the emulator at ${at.url} has stopped; nothing was sent (another program may listen on its port now)`,
          ),
        )
      : send(request);
  const client = createApiClient({ baseUrl: at.url, apiKey: at.apiKey, fetch: open });
  const admin = createAdminClient({ url: at.url, adminToken: at.adminToken, fetch: open });
  const env: EmulatorEnv = {
    EXT_BASE_URL: at.baseUrl,
    EXT_LOCAL_URL: at.baseUrl,
    EXT_ADMIN_URL: at.adminUrl,
    EXT_API_KEY: at.apiKey,
    EXT_ADMIN_TOKEN: at.adminToken,
  };
  return {
    ...at,
    env,
    client,
    admin,
    ...emulatorCalls(client, admin),
    deploy: (folder, options) =>
      at.adminToken
        ? deploy({ baseUrl: at.baseUrl, apiKey: at.apiKey, adminToken: at.adminToken }, folder, options)
        : Promise.reject(unprovenDeploy(who, at.url)),
  };
}

/**
 * A deploy runs on connections of its own (in process, or a new `ext deploy`), so without the admin token
 * it could only trust the first connection it opens, which may be another program's once the server let its
 * port go: it would carry the key and the bundle there. It runs only where the server proves itself.
 */
function unprovenDeploy(who: string, url: string): StartEmulatorError {
  return new StartEmulatorError(
    `${who}: deploy() needs the admin token: without it the server at ${url} cannot prove it is the emulator, ` +
      "and the deploy would send the API key on a new connection to whatever listens on that port now; nothing " +
      "was sent. Pass EXT_ADMIN_TOKEN (or { adminToken }), as startEmulator()'s connection does",
  );
}

/**
 * An emulator started elsewhere, from the variables of `emulator.env` (the names `ext exec` sets). The token
 * may be left out only for a server started with --open-control-plane.
 */
export function addressFromEnv(
  env: Partial<EmulatorEnv> | Record<string, string | undefined>,
  options: ConnectEmulatorOptions,
): EmulatorAddress {
  checkOptions("connectEmulator", options, CONNECT_OPTIONS);
  const { EXT_BASE_URL: baseUrl, EXT_ADMIN_URL: adminUrl, EXT_API_KEY: apiKey } = env;
  const adminToken = options.adminToken ?? env.EXT_ADMIN_TOKEN ?? "";
  if (!baseUrl || !adminUrl || !apiKey) {
    const missing = Object.entries({ EXT_BASE_URL: baseUrl, EXT_ADMIN_URL: adminUrl, EXT_API_KEY: apiKey })
      .filter(([, v]) => !v)
      .map(([k]) => k);
    throw new StartEmulatorError(
      `connectEmulator: ${missing.join(", ")} not set; pass emulator.env from startEmulator() (or run under ext exec)`,
    );
  }
  return { url: adminUrl.replace(/\/_emulator$/, ""), baseUrl, adminUrl, apiKey, adminToken };
}
