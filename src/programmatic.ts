/**
 * `startEmulator()`: an emulator inside the test process, for test suites. Memory mode and a free port by
 * default; each call has its own database, blob directory, clock and rate windows, so several run at once
 * without seeing each other.
 */
import type { Emulator as SharedEmulator, StartEmulatorCommonOptions } from "../client/emulator";
import { emulatorCalls, noPlaintextKeyMessage } from "../client/emulator-methods";
import { createAdminClient, createApiClient } from "../client/index";
import { parseServerConfig, type ServerConfig } from "./config";
import { restoreSnapshot } from "./emulator/reset";
import { createLogger, type LogLevel } from "./logger";
import { deployFolder } from "./programmatic-deploy";
import type { Runtime } from "./runtime";
import { demoFixture, firstPlaintextKey } from "./seed/demo";
import type { BundleDir } from "./seed/exact";
import type { Fixture } from "./seed/model";
import { resolveFixtureSource } from "./seed/resolve";
import { validateFixture } from "./seed/validate";
import { startServer } from "./server";

/** What every refused call rejects with, as in the Node package: `status`, `code`, `message`, `details`. */
export { ApiCallError } from "../client/errors";

export interface StartEmulatorOptions extends Omit<StartEmulatorCommonOptions, "fixture" | "logLevel"> {
  /**
   * A fixture object, a fixture file path, an export directory (`ext export DIR`: `fixture.json` and its
   * bundles), or "demo" (the default: the embedded demo fixture).
   */
  fixture?: Fixture | string;
  /** Server log level on stderr (default "silent"). */
  logLevel?: LogLevel;
}

/** The shared `Emulator` (client/emulator.ts), plus what only an in-process emulator can give. */
export interface Emulator extends SharedEmulator {
  /** The emulator's internals, for assertions a test cannot make over HTTP. */
  runtime: Runtime;
}

export class StartEmulatorError extends Error {
  override name = "StartEmulatorError";
}

function fixtureOf(fixture: Fixture | string | undefined): { fixture: Fixture; bundleDir: BundleDir } {
  if (fixture === undefined) return { fixture: demoFixture(), bundleDir: null };
  if (typeof fixture === "string") return resolveFixtureSource(fixture);
  return { fixture: validateFixture(structuredClone(fixture), "startEmulator fixture"), bundleDir: null };
}

export async function startEmulator(options: StartEmulatorOptions = {}): Promise<Emulator> {
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
    rateLimits: options.rateLimits ?? true,
    autoApproveMs: options.autoApproveMs ?? null,
    logLevel: options.logLevel ?? "silent",
  };
  // Not from the environment: a test's emulator must not change because a developer exported EXT_PORT.
  const config: ServerConfig = parseServerConfig(flags, {});
  const server = startServer(config, {
    seedFixture: fixture,
    seedBundleDir: bundleDir,
    logger: createLogger(config.logLevel),
  });
  const adminToken = server.runtime.control.adminToken;
  // The admin token is always accepted; off loopback (host "0.0.0.0") it is the only way in.
  const client = createApiClient({ baseUrl: server.url, apiKey });
  const admin = createAdminClient({ url: server.url, adminToken });
  const emulator: Emulator = {
    baseUrl: server.baseUrl,
    apiKey,
    adminUrl: server.adminUrl,
    url: server.url,
    port: server.port,
    adminToken,
    env: {
      EXT_BASE_URL: server.baseUrl,
      EXT_LOCAL_URL: server.baseUrl,
      EXT_ADMIN_URL: server.adminUrl,
      EXT_API_KEY: apiKey,
      EXT_ADMIN_TOKEN: adminToken,
    },
    client,
    admin,
    runtime: server.runtime,
    // Through the control plane, so a reset is exactly what POST /_emulator/reset does for anyone else.
    ...emulatorCalls(client, admin),
    // In process: no HTTP round trip, so a restore before every test costs only the copy itself.
    snapshot: async () => ({ id: server.runtime.snapshots.take() }),
    restore: async (snapshot) => restoreSnapshot(server.runtime, snapshot.id),
    deploy: (folder, options) => deployFolder(client, folder, options),
    stop: () => server.stop(true),
  };
  return emulator;
}
