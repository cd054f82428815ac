import { defineCommand } from "citty";
import { markStartup, traceStartupTo } from "../../../common/startup-trace";
import {
  ConfigError,
  FixtureError,
  parseServerConfig,
  type RunningEmulator,
  type ServerConfig,
  type ServerFlags,
  startServer,
} from "../../../server";
import { explainLines } from "../lib/profile-explain";
import { bannerLines } from "../lib/serve-banner";
import { checkDataDir, describeStartupError } from "../lib/startup-errors";
import { watchStdin } from "../lib/stdin-watch";
import { stdoutIsTerminal } from "../lib/terminal";
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
      "The control plane's token, required on every bind; generated when not given, and kept in the data directory's private server.json and the ready file; prefer the variable, a flag shows in `ps` to every local user (env EXT_ADMIN_TOKEN)",
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
      "Write {url,baseUrl,adminUrl,dashboardUrl,port,pid,adminToken,apiKeys} JSON here (0600) once listening: what the banner prints only to a terminal; removed at start and on exit (env EXT_READY_FILE)",
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
  profile: {
    type: "string",
    description:
      "A platform profile (ext conformance --save-profile): the developer API answers in the platform's observed shape, its rules unchanged (env EXT_PROFILE)",
    valueHint: "FILE",
  },
  explain: {
    type: "boolean",
    description: "With --profile: list what the profile changes, then exit without serving",
  },
} as const;

/** Flags that ask for something other than a server (a report, then exit): not settings, so no variable sets them. */
export const SERVE_ACTION_FLAGS: ReadonlySet<string> = new Set(["explain"]);

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
    ["profile", "profile"],
  ];
  for (const [arg, key] of map) if (args[arg] !== undefined) flags[key] = args[arg] as string | boolean;
  return flags;
}

export default defineCommand({
  meta: {
    name: "serve",
    // One line: it is also the command list of `ext --help`; examples are in tools/cli/lib/help.ts.
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
    if (args.explain) {
      for (const line of explainLines(config, flags)) out(line);
      process.exit(EXIT.ok);
    }
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
    if (quiet) return;
    // Secret values only to a terminal: a file or pipe may be read by others (tools/cli/lib/terminal.ts).
    for (const line of bannerLines(emulator, { terminal: stdoutIsTerminal() })) out(line);
    // The last of the start's own work: Bun accepts the first connection once this returns.
    markStartup("ready (ready file, server.json, banner written)");
  },
});
