/**
 * The tools' configuration: what the CLI's client commands, the call layer and the Bun helper take from the
 * environment, read once here (flags win). The tools' only reader of `process.env`; the server reads its own in
 * server/base/config.ts.
 */

type Env = Record<string, string | undefined>;

/** The CLI's client commands (`ext deploy`, `ext seed --target`): what they may take from the environment. Flags win. */
export interface ClientEnv {
  /** EXT_EXTENSION_ID */
  extensionId: string | null;
  /** EXT_API_KEY */
  apiKey: string | null;
  /** EXT_READ_ONLY_KEY: `ext conformance`'s narrower key. */
  readOnlyKey: string | null;
  /** EXT_LOCAL_URL: what `--target local` means; null leaves it to the `ext serve` found from this folder. */
  localUrl: string | null;
  /** EXT_ADMIN_TOKEN: for the control plane of an emulator named by URL (a found one's is in its server.json). */
  adminToken: string | null;
  /** EXT_BASE_URL: the emulator `ext exec` (or the user) points at; any of its URLs. */
  baseUrl: string | null;
  /** EXT_DATA_DIR: the one data directory to find the server by; null walks up to the nearest ./.ext-data. */
  dataDir: string | null;
  /** How the user typed this command, for the next commands we suggest: `npx ext` when npm ran us. */
  command: "ext" | "npx ext";
  /** EXT_MAX_WAIT: seconds a command may spend in all waiting out 429s (as given; checked by the CLI). */
  maxWait: string | null;
  /** EXT_REQUEST_TIMEOUT: seconds any one request may keep the tool waiting (as given; checked by the transport). */
  requestTimeout: string | null;
  /**
   * EXT_TRUST_TARGET=1: a named server is sent the admin token without its proof, for an emulator reached
   * at another address than it listens on (a port mapping, a proxy, a container's service name).
   */
  trustTarget: boolean;
}

export function parseClientEnv(env: Env = process.env): ClientEnv {
  const get = (name: string) => (env[name] === undefined || env[name] === "" ? null : env[name]!);
  return {
    extensionId: get("EXT_EXTENSION_ID"),
    apiKey: get("EXT_API_KEY"),
    readOnlyKey: get("EXT_READ_ONLY_KEY"),
    localUrl: get("EXT_LOCAL_URL"),
    adminToken: get("EXT_ADMIN_TOKEN"),
    baseUrl: get("EXT_BASE_URL"),
    dataDir: get("EXT_DATA_DIR"),
    // npm sets npm_command for `npx`, `npm exec` and `npm run`: `ext` alone is then not on the user's PATH.
    command: get("npm_command") ? "npx ext" : "ext",
    maxWait: get("EXT_MAX_WAIT"),
    requestTimeout: get("EXT_REQUEST_TIMEOUT"),
    trustTarget: get("EXT_TRUST_TARGET") === "1",
  };
}

/** The environment of the command `ext exec` runs: ours, plus the emulator's addresses and key. */
export function childEnvironment(extra: Record<string, string>, env: Env = process.env): Record<string, string> {
  const base: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) base[k] = v;
  return { ...base, ...extra };
}

/** The variables `ext exec` sets for its command, as the Bun helper's `connectEmulator()` reads them by default. */
export function emulatorVariables(env: Env = process.env): Record<string, string | undefined> {
  const { EXT_BASE_URL, EXT_LOCAL_URL, EXT_ADMIN_URL, EXT_API_KEY, EXT_ADMIN_TOKEN } = env;
  return { EXT_BASE_URL, EXT_LOCAL_URL, EXT_ADMIN_URL, EXT_API_KEY, EXT_ADMIN_TOKEN };
}
