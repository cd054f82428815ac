import { resolve } from "node:path";
import { defineCommand } from "citty";
import { STARTER_KEY_NAME } from "../../src/accounts/starter";
import {
  ConfigError,
  DEFAULT_DATA_DIR,
  isLoopback,
  parseServerConfig,
  type ServerConfig,
  type ServerFlags,
} from "../../src/config";
import { dashboardLoginUrl } from "../../src/dashboard/login";
import { printable } from "../../src/printable";
import { firstPlaintextKey } from "../../src/seed/demo";
import { FixtureError } from "../../src/seed/validate";
import { type RunningEmulator, startServer } from "../../src/server";
import { serverFilePath } from "../../src/server-file";
import { markStartup, traceStartupTo } from "../../src/startup-trace";
import { shellQuote } from "../lib/shell-quote";
import { checkDataDir, describeStartupError } from "../lib/startup-errors";
import { watchStdin } from "../lib/stdin-watch";
import { EXIT, err, fail, out } from "../output";

export const serveArgs = {
  host: { type: "string", description: "Address to bind (env EXT_HOST)", valueHint: "127.0.0.1" },
  port: { type: "string", description: "Port; 0 picks a free one (env EXT_PORT)", valueHint: "4780" },
  "data-dir": {
    type: "string",
    description: "Where the SQLite file and bundles live (env EXT_DATA_DIR)",
    valueHint: "./.ext-data",
  },
  memory: { type: "boolean", description: "Keep everything in memory; nothing is left on disk (env EXT_MEMORY)" },
  seed: {
    type: "string",
    description: "Fixture file loaded at start, idempotently, or `demo` for the embedded demo fixture (env EXT_SEED)",
    valueHint: "FILE",
  },
  empty: {
    type: "boolean",
    description:
      "Start with no account even on a new data directory (else one is created and its key printed) (env EXT_EMPTY)",
  },
  "rate-limits": {
    type: "boolean",
    description: "Enforce the spec's rate limits; --no-rate-limits turns them off (env EXT_RATE_LIMITS)",
  },
  "admin-token": {
    type: "string",
    description:
      "The control plane's token, required on every bind; generated when not given, and kept in the data directory's private server.json and the ready file (env EXT_ADMIN_TOKEN)",
    valueHint: "TOKEN",
  },
  "open-control-plane": {
    type: "boolean",
    description:
      "Let requests without the admin token into the control plane, as before tokens were required: any local user then has it. Loopback binds only (env EXT_OPEN_CONTROL_PLANE)",
  },
  "allowed-hosts": {
    type: "string",
    description:
      "Host names this server answers to besides localhost and loopback addresses, comma-separated; on any bind, they turn the Host check (DNS rebinding) on (env EXT_ALLOWED_HOSTS)",
    valueHint: "NAMES",
  },
  "log-level": {
    type: "string",
    description:
      "debug, info, warn, error or silent (silent: nothing at all, not even the start-up banner; an error that stops the start is still printed) (env EXT_LOG_LEVEL)",
    valueHint: "info",
  },
  "ready-file": {
    type: "string",
    description:
      "Write {url,baseUrl,adminUrl,port,pid,adminToken,dashboardLoginUrl} JSON here (0600) once listening; removed at start and on exit (env EXT_READY_FILE)",
    valueHint: "PATH",
  },
  "auto-approve": {
    type: "string",
    description: "Approve every valid submission by itself, after DELAY_MS (default 0) (env EXT_AUTO_APPROVE)",
    valueHint: "DELAY_MS",
    optionalValue: true,
  },
  "exit-with-stdin": {
    type: "boolean",
    description: "Stop when standard input closes: a parent that holds a pipe to it died (env EXT_EXIT_WITH_STDIN)",
  },
  "export-on-exit": {
    type: "string",
    description:
      "On SIGINT/SIGTERM, write the whole state to DIR (fixture.json + bundles/; load it with --seed DIR) (env EXT_EXPORT_ON_EXIT)",
    valueHint: "DIR",
  },
  "trace-startup": {
    type: "boolean",
    description: "Print each start-up phase's time on stderr (env EXT_TRACE_STARTUP)",
  },
} as const;

/** citty args → config flags; absent flags stay undefined so the environment can fill them. */
export function serveFlags(args: Record<string, unknown>): ServerFlags {
  const flags: ServerFlags = {};
  const map: [string, keyof ServerFlags][] = [
    ["host", "host"],
    ["port", "port"],
    ["data-dir", "dataDir"],
    ["memory", "memory"],
    ["seed", "seed"],
    ["empty", "empty"],
    ["rate-limits", "rateLimits"],
    ["admin-token", "adminToken"],
    ["open-control-plane", "openControlPlane"],
    ["allowed-hosts", "allowedHosts"],
    ["log-level", "logLevel"],
    ["ready-file", "readyFile"],
    ["auto-approve", "autoApproveMs"],
    ["exit-with-stdin", "exitWithStdin"],
    ["trace-startup", "traceStartup"],
    ["export-on-exit", "exportOnExit"],
  ];
  for (const [arg, key] of map) if (args[arg] !== undefined) flags[key] = args[arg] as string | boolean;
  return flags;
}

/** A banner line for a key: its names came from a fixture file, so they are shown printable. */
const apiKeyLine = (key: string, accountId: string, name: string, note = "") =>
  `  api key:       ${printable(key)}  (account ${printable(accountId)}, "${printable(name)}"${note})`;

export default defineCommand({
  meta: {
    name: "serve",
    // One line: it is also the command list of `ext --help`; examples are in cli/lib/help.ts.
    description: "Run the emulator (the developer API, its docs UI and the control plane)",
  },
  args: serveArgs,
  async run({ args }) {
    markStartup("server modules loaded (Elysia, TypeBox, drizzle)");
    let emulator: RunningEmulator | undefined;
    let quiet = false;
    // Installed before the server starts: a supervisor that reads the banner (or the ready file) and
    // sends SIGTERM at once must get the graceful stop, not the default kill.
    let stopping = false;
    const shutdown = async (signal: string) => {
      if (stopping) return;
      stopping = true;
      if (!quiet) err(`[ext] ${signal}: draining requests and closing the database`);
      await emulator?.stop();
      process.exit(EXIT.ok);
    };
    process.on("SIGINT", () => void shutdown("SIGINT"));
    process.on("SIGTERM", () => void shutdown("SIGTERM"));
    const flags = serveFlags(args);
    let config: ServerConfig;
    try {
      config = parseServerConfig(flags);
    } catch (e) {
      if (e instanceof ConfigError) fail(e.message, EXIT.usage);
      throw e;
    }
    if (config.empty && config.seed)
      fail("--empty starts with no account and --seed loads some: give one of them", EXIT.usage);
    quiet = config.logLevel === "silent";
    if (config.traceStartup) traceStartupTo(err);
    try {
      checkDataDir(config, flags);
      // `--seed demo` (or EXT_SEED=demo) is the embedded demo fixture: createRuntime resolves it.
      emulator = startServer(config, { starterAccount: !config.empty });
      if (config.exitWithStdin) watchStdin(() => void shutdown("standard input closed"));
    } catch (e) {
      if (e instanceof FixtureError) fail(e.message, EXIT.usage);
      const known = describeStartupError(e, config, flags);
      fail(known?.message ?? (e as Error).message, known?.exitCode ?? EXIT.runtime);
    }
    const { runtime } = emulator;
    if (quiet) return;
    out(`ext emulator listening on ${emulator.baseUrl}`);
    // The one-time link logs the dashboard in (a session secret the page keeps); the bare address shows how to get one.
    out(`  dashboard:     ${dashboardLoginUrl(runtime.control)}`);
    out(`  docs:          ${emulator.url}/docs`);
    out(`  control plane: ${emulator.adminUrl}`);
    for (const line of adminTokenLines(runtime)) out(line);
    if (runtime.config.autoApproveMs !== null) out(`  auto-approve:  after ${runtime.config.autoApproveMs} ms`);
    out(`  data:          ${runtime.config.memory ? "in memory" : runtime.config.dataDir}`);
    for (const acc of runtime.startupFixture?.accounts ?? []) {
      for (const k of acc.apiKeys ?? []) if (k.key) out(apiKeyLine(k.key, acc.id, k.name));
    }
    // A key the fixture left to be generated is stored as a hash only: this is the one time it is shown.
    for (const k of runtime.startupSeedReport?.keys ?? [])
      if (k.key) out(apiKeyLine(k.key, k.accountId, k.name, ", generated"));
    const { starter } = runtime;
    if (starter) out(apiKeyLine(starter.key, starter.accountId, STARTER_KEY_NAME, ", new; shown once"));
    for (const line of exportLines(emulator)) out(line);
    // The last of the start's own work: Bun accepts the first connection once this returns.
    markStartup("ready (ready file, server.json, banner written)");
  },
});

/**
 * A generated token is shown when nothing else holds it for the owner's tools: in memory mode (no server.json)
 * or on a non-loopback bind (callers elsewhere). Given with --admin-token, the user has it already.
 */
function tokenShown(runtime: RunningEmulator["runtime"]): boolean {
  const { config, control } = runtime;
  return control.adminTokenGenerated && (config.memory || !isLoopback(config.host));
}

function adminTokenLines(runtime: RunningEmulator["runtime"]): string[] {
  const { config, control } = runtime;
  if (control.open)
    return [
      "  WARNING:       --open-control-plane: any local user (and any script on this machine) can reset, seed and",
      "                 export this server with its secret values, and mint keys; drop the flag to require the token",
    ];
  if (tokenShown(runtime)) return [`  admin token:   ${control.adminToken}`];
  if (control.adminTokenGenerated)
    return [`  admin token:   in ${serverFilePath(config.dataDir)} (this folder's commands read it)`];
  return [];
}

/**
 * What another shell exports to use this server: the key shown above, else the dashboard's key of the first
 * account (what a command in this folder would use too); with no account, what to do next.
 */
function exportLines(emulator: RunningEmulator): string[] {
  const { runtime } = emulator;
  // A key this start made or loaded belongs to an account that exists: no need to list the accounts.
  let key = runtime.starter?.key ?? (runtime.startupFixture ? firstPlaintextKey(runtime.startupFixture) : null);
  if (!key) {
    const first = runtime.services.accounts.listAccounts()[0];
    if (!first)
      return ["  no account yet: create one in the dashboard, or load the demo:", `    ${seedDemoCommand(emulator)}`];
    try {
      key = runtime.services.dashboardKeys.forAccount(first.id).plaintext;
    } catch (e) {
      return [`  no key to export for ${first.id}: ${(e as Error).message}`];
    }
  }
  const vars = [`EXT_BASE_URL=${emulator.baseUrl}`, `EXT_API_KEY=${key}`];
  if (tokenShown(runtime)) vars.push(`EXT_ADMIN_TOKEN=${runtime.control.adminToken}`);
  const { memory, dataDir } = runtime.config;
  // The CLI looks for a server in ./.ext-data unless EXT_DATA_DIR names another data directory.
  const finds =
    resolve(dataDir) === resolve(DEFAULT_DATA_DIR)
      ? "commands run in this folder or below it find this server by themselves"
      : `commands run with EXT_DATA_DIR=${dataDir} find this server by themselves`;
  const note = memory ? "" : `  (${finds})`;
  return [`  other shells:${note}`, `    export ${vars.join(" ")}`];
}

/** A command that loads the demo into this server from another shell, with what it needs to be let in. */
function seedDemoCommand(emulator: RunningEmulator): string {
  const { config, control } = emulator.runtime;
  // Found by its data directory, its token read from there: nothing to type.
  if (!config.memory)
    return resolve(config.dataDir) === resolve(DEFAULT_DATA_DIR)
      ? "ext seed demo --target local"
      : `EXT_DATA_DIR=${shellQuote(config.dataDir)} ext seed demo --target local`;
  if (control.open) return `ext seed demo --target ${emulator.url}`;
  const token = tokenShown(emulator.runtime) ? control.adminToken : "<your admin token>";
  return `EXT_ADMIN_TOKEN=${token} ext seed demo --target ${emulator.url}`;
}
