/**
 * `startEmulator()`: an emulator inside the test process, for test suites. Memory mode and a free port by
 * default; each call has its own database, blob directory, clock and rate windows, so several run at once
 * without seeing each other.
 */
import type {
  ConnectEmulatorOptions,
  EmulatorConnection,
  EmulatorEnv,
  FixtureInput,
  Emulator as SharedEmulator,
  StartEmulatorCommonOptions,
} from "../../client/emulator";
import {
  addressFromEnv,
  COMMON_START_OPTIONS,
  checkOptions,
  emulatorConnection,
} from "../../client/emulator-connection";
import { noPlaintextKeyMessage } from "../../client/emulator-methods";
import { StartEmulatorError } from "../../client/errors";
import {
  type BundleDir,
  createLogger,
  firstPlaintextKey,
  freshDemoFixture,
  type LoadedProfile,
  namesDemo,
  ProfileError,
  parseServerConfig,
  profileFromValue,
  type Runtime,
  readProfileFile,
  resolveFixtureSource,
  restoreSnapshot,
  type ServerConfig,
  type Fixture as ServerFixture,
  startServer,
  validateFixture,
} from "../../server";
import { helperFetch } from "../calls/helper-transport";
import { emulatorVariables } from "../config";
import { deployInProcess } from "./deploy";

export type * from "../../client/emulator";
/** The fixture a test writes (fields with a default are optional), as the Node package names it. */
export type { FixtureInput as Fixture } from "../../client/emulator";
/** What every refused call rejects with, as in the Node package: `status`, `code`, `message`, `details`. */
export { ApiCallError, StartEmulatorError } from "../../client/errors";
/** The API's models (Extension, Version, Limits, …) and the limit keys, as the Node package exports them. */
export type * from "../../client/models";

/** The options of both helpers (client/emulator.ts); the Node one adds only how to run the binary. */
export type StartEmulatorOptions = StartEmulatorCommonOptions;

/** The shared `Emulator` (client/emulator.ts), plus what only an in-process emulator can give. */
export interface Emulator extends SharedEmulator {
  /** The emulator's internals, for assertions a test cannot make over HTTP. */
  runtime: Runtime;
}

function fixtureOf(fixture: FixtureInput | string | undefined): { fixture: ServerFixture; bundleDir: BundleDir } {
  // The demo's keys are public and a test's emulator listens on loopback, which any local user can reach: keys
  // of its own (`emulator.apiKey`).
  if (fixture === undefined || (typeof fixture === "string" && namesDemo(fixture)))
    return { fixture: freshDemoFixture(), bundleDir: null };
  if (typeof fixture === "string") return resolveFixtureSource(fixture);
  return { fixture: validateFixture(structuredClone(fixture), "startEmulator fixture"), bundleDir: null };
}

/** The `profile` option: a file (read as `ext serve --profile` reads one) or the profile itself. */
function profileOf(profile: string | object): LoadedProfile {
  try {
    return typeof profile === "string"
      ? readProfileFile(profile)
      : profileFromValue(profile, "startEmulator's profile");
  } catch (e) {
    if (e instanceof ProfileError)
      throw new StartEmulatorError(`profile${typeof profile === "string" ? ` ${profile}` : ""}: ${e.message}`);
    throw e;
  }
}

/**
 * An emulator started elsewhere (a test runner's global setup, `ext exec`), from the variables of
 * `emulator.env`: EXT_BASE_URL, EXT_ADMIN_URL, EXT_API_KEY, EXT_ADMIN_TOKEN. As the Node package's.
 */
export function connectEmulator(
  env: Partial<EmulatorEnv> | Record<string, string | undefined> = emulatorVariables(),
  options: ConnectEmulatorOptions = {},
): EmulatorConnection {
  const at = addressFromEnv(env, options);
  return emulatorConnection(at, deployInProcess, { fetch: helperFetch(at.url, at.adminToken, "connectEmulator") });
}

export async function startEmulator(options: StartEmulatorOptions = {}): Promise<Emulator> {
  checkOptions("startEmulator", options, COMMON_START_OPTIONS);
  const { fixture, bundleDir } = fixtureOf(options.fixture);
  const apiKey = firstPlaintextKey(fixture);
  if (!apiKey) throw new StartEmulatorError(noPlaintextKeyMessage(bundleDir?.label ?? null));
  const flags = {
    host: options.host ?? "127.0.0.1",
    port: options.port ?? 0,
    memory: options.dataDir === undefined,
    dataDir: options.dataDir ?? null,
    seed: null,
    readyFile: null,
    adminToken: null,
    // Off unless asked for (client/emulator.ts, `rateLimits`): a suite's 11th create must not wait an hour.
    rateLimits: options.rateLimits ?? false,
    autoApproveMs: options.autoApproveMs ?? null,
    logLevel: options.logLevel ?? "silent",
  };
  // Not from the environment: a test's emulator must not change because a developer exported EXT_PORT.
  const config: ServerConfig = parseServerConfig(flags, {});
  const server = startServer(config, {
    seedFixture: fixture,
    seedBundleDir: bundleDir,
    ...(typeof options.fixture === "string" ? { seedSource: options.fixture } : {}),
    logger: createLogger(config.logLevel),
    ...(options.profile === undefined ? {} : { profile: profileOf(options.profile) }),
  });
  const adminToken = server.runtime.control.adminToken;
  const at = { url: server.url, baseUrl: server.baseUrl, adminUrl: server.adminUrl, apiKey, adminToken };
  let stopped = false;
  const emulator: Emulator = {
    ...emulatorConnection(at, deployInProcess, {
      fetch: helperFetch(at.url, adminToken, "startEmulator"),
      who: "startEmulator",
      stopped: () => stopped,
    }),
    port: server.port,
    runtime: server.runtime,
    // In process: no HTTP round trip, so a restore before every test costs only the copy itself.
    snapshot: async () => ({ id: server.runtime.snapshots.take() }),
    restore: async (snapshot) => restoreSnapshot(server.runtime, snapshot.id),
    stop: () => {
      stopped = true;
      return server.stop(true);
    },
  };
  return emulator;
}
