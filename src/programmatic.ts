/**
 * `startEmulator()`: an emulator inside the test process, for test suites. Memory mode and a free port by
 * default; each call has its own database, blob directory, clock and rate windows, so several run at once
 * without seeing each other.
 */
import { parseServerConfig, type ServerConfig } from "./config";
import { demoFixture, firstPlaintextKey } from "./fixtures/demo";
import type { Fixture } from "./fixtures/model";
import { resolveFixture } from "./fixtures/resolve";
import { validateFixture } from "./fixtures/validate";
import { createLogger, type LogLevel } from "./logger";
import type { Runtime } from "./runtime";
import { type RunningEmulator, startServer } from "./server";

export interface StartEmulatorOptions {
  /** A fixture object, a fixture file path, or "demo" (the default: the embedded demo fixture). */
  fixture?: Fixture | string;
  /** Keep the data in this directory (a restart finds it again); in memory when absent. */
  dataDir?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Enforce the spec's rate limits (default true, as `ext serve`). */
  rateLimits?: boolean;
  /** Approve every valid submission by itself after this many ms; off by default. */
  autoApproveMs?: number | null;
  /** Server log level on stderr (default "silent"). */
  logLevel?: LogLevel;
}

export interface Emulator {
  /** The developer API base, ending in /developer/v1. */
  baseUrl: string;
  /** The first API key of the fixture written with a plaintext `key`. */
  apiKey: string;
  /** The control plane, ending in /_emulator. */
  adminUrl: string;
  /** http://host:port */
  url: string;
  port: number;
  /** The emulator's internals, for assertions a test cannot make over HTTP. */
  runtime: Runtime;
  /** Wipes every row, bundle, rate window, fault and clock change, and re-applies the start-up fixture. */
  reset(): Promise<void>;
  /** Moves the emulator's clock forward (timestamps and rate windows follow it; the auto-approve delay is real time). */
  advanceClock(seconds: number): Promise<void>;
  /** Stops listening, closes the database and removes the memory mode's temporary files. Idempotent. */
  stop(): Promise<void>;
}

export class StartEmulatorError extends Error {
  override name = "StartEmulatorError";
}

function fixtureOf(fixture: Fixture | string | undefined): Fixture {
  if (fixture === undefined) return demoFixture();
  if (typeof fixture === "string") return resolveFixture(fixture);
  return validateFixture(structuredClone(fixture), "startEmulator fixture");
}

async function controlPlane(server: RunningEmulator, path: string, body: unknown): Promise<void> {
  // The admin token is always accepted; off loopback (host "0.0.0.0") it is the only way in.
  const headers = { "content-type": "application/json", authorization: `Bearer ${server.runtime.control.adminToken}` };
  const res = await fetch(server.adminUrl + path, { method: "POST", headers, body: JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new StartEmulatorError(`${path} failed: ${res.status} ${text.slice(0, 300)}`);
}

export async function startEmulator(options: StartEmulatorOptions = {}): Promise<Emulator> {
  const fixture = fixtureOf(options.fixture);
  const apiKey = firstPlaintextKey(fixture);
  if (!apiKey)
    throw new StartEmulatorError(
      'the fixture has no API key with a plaintext "key"; add one so startEmulator can return it',
    );
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
  const server = startServer(config, { seedFixture: fixture, logger: createLogger(config.logLevel) });
  return {
    baseUrl: server.baseUrl,
    apiKey,
    adminUrl: server.adminUrl,
    url: server.url,
    port: server.port,
    runtime: server.runtime,
    // Through the control plane, so a reset is exactly what POST /_emulator/reset does for anyone else.
    reset: () => controlPlane(server, "/reset", {}),
    advanceClock: (seconds) => controlPlane(server, "/clock", { advanceSeconds: seconds }),
    stop: () => server.stop(true),
  };
}
