import { constants } from "node:os";
import { defineCommand } from "citty";
import { DEFAULT_HOST } from "../../../common/addresses";
import {
  ConfigError,
  firstPlaintextKey,
  freshDemoFixture,
  namesDemo,
  ProfileError,
  parseServerConfig,
  type RunningEmulator,
  startServer,
} from "../../../server";
import { UsageError } from "../../calls/usage-error";
import { childEnvironment } from "../../config";
import { readFixtureArgument } from "../lib/fixture-arg";
import { seedProfileWarning } from "../lib/serve-banner";
import { EXIT, err } from "../output";

const execArgs = {
  seed: {
    type: "string",
    description: "Fixture file to seed (or `demo`); the embedded demo fixture when absent",
    valueHint: "FILE",
  },
  port: { type: "string", description: "Port of the emulator; 0 (the default) picks a free one", valueHint: "0" },
  "rate-limits": {
    type: "boolean",
    description: "Enforce the spec's rate limits; --no-rate-limits turns them off (env EXT_RATE_LIMITS)",
  },
  "log-level": { type: "string", description: "Emulator log level on stderr (default warn)", valueHint: "warn" },
  profile: {
    type: "string",
    description:
      "A platform profile (ext conformance --save-profile): the emulator answers in the platform's observed shape",
    valueHint: "FILE",
  },
} as const;

/** The exit status a shell would report: the code, or 128 + the signal's number. */
export function exitStatusOf(exitCode: number | null, signalCode: string | number | null): number {
  if (exitCode !== null) return exitCode;
  if (typeof signalCode === "number") return 128 + signalCode;
  if (signalCode) return 128 + (constants.signals[signalCode as keyof typeof constants.signals] ?? 0);
  return EXIT.runtime;
}

/** 127 as in a shell: the command could not be started. */
const EXIT_COMMAND_NOT_FOUND = 127;

export default defineCommand({
  meta: {
    name: "exec",
    description:
      "Run a command against a fresh in-memory emulator (EXT_BASE_URL, EXT_API_KEY, EXT_ADMIN_URL, EXT_ADMIN_TOKEN set); exit with its code",
  },
  args: execArgs,
  async run({ args, rawArgs }) {
    const dashes = rawArgs.indexOf("--");
    const command = dashes < 0 ? [] : rawArgs.slice(dashes + 1);
    if (command.length === 0) throw new UsageError("give the command to run after --, e.g. ext exec -- npm test");
    // Handlers go in first: Bun installs them asynchronously, and a signal that came before would kill
    // ext with the command still running. One that arrives before the spawn is delivered right after it.
    let child: ReturnType<typeof Bun.spawn> | undefined;
    let early: NodeJS.Signals | undefined;
    const signals: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];
    const handlers = signals.map((s) => [s, () => (child ? child.kill(s) : (early ??= s))] as const);
    for (const [s, h] of handlers) process.on(s, h);
    // Flags after `--` belong to the command: citty (node:util parseArgs) stops at `--`.
    const seed = args.seed;
    // The demo's keys are public (the README prints them) and any user of the machine can reach the emulator's
    // loopback port: this run's demo account gets keys of its own.
    const fixture = seed && !namesDemo(seed) ? readFixtureArgument(seed) : freshDemoFixture();

    let emulator: RunningEmulator;
    try {
      const config = parseServerConfig({
        host: DEFAULT_HOST,
        port: args.port ?? 0,
        memory: true,
        seed: null,
        readyFile: null,
        logLevel: args["log-level"] ?? "warn",
        rateLimits: args["rate-limits"],
        profile: args.profile,
      });
      emulator = startServer(config, { seedFixture: fixture, ...(seed ? { seedSource: seed } : {}) });
    } catch (e) {
      if (e instanceof ConfigError) throw new UsageError(e.message);
      if (e instanceof ProfileError)
        throw new UsageError(
          `${args.profile ? `--profile ${args.profile}` : `--seed ${seed}: the profile it carries`}: ${e.message}`,
        );
      throw e;
    }
    const seedProfile = seedProfileWarning(emulator.runtime.profile);
    if (seedProfile) err(`ext exec: warning: ${seedProfile}`);
    const apiKey = firstPlaintextKey(fixture);
    if (!apiKey) err("ext exec: warning: the fixture has no API key with a plaintext `key`; EXT_API_KEY is not set");
    // EXT_LOCAL_URL too, so `ext deploy --target local` inside the command deploys to this emulator.
    const env = childEnvironment({
      EXT_BASE_URL: emulator.baseUrl,
      EXT_LOCAL_URL: emulator.baseUrl,
      EXT_ADMIN_URL: emulator.adminUrl,
      // Accepted on loopback too, so the command's control-plane calls work the same wherever it runs.
      EXT_ADMIN_TOKEN: emulator.runtime.control.adminToken,
      ...(apiKey ? { EXT_API_KEY: apiKey } : {}),
    });

    try {
      child = Bun.spawn(command, { env, stdio: ["inherit", "inherit", "inherit"] });
    } catch (e) {
      await emulator.stop(true);
      err(`error: cannot run ${command[0]}: ${(e as Error).message}`);
      process.exit(EXIT_COMMAND_NOT_FOUND);
    }
    // Forwarded, so `kill -TERM <ext>` reaches the command too; the command decides when it is done.
    if (early) child.kill(early);
    await child.exited;
    for (const [s, h] of handlers) process.off(s, h);
    await emulator.stop(true);
    process.exit(exitStatusOf(child.exitCode, child.signalCode));
  },
});
