/**
 * `startEmulator()` for Node (and any runtime with child processes): spawns the native `ext serve` in memory
 * mode on a free port, resolves once its ready file appears, and drives it through the typed clients. No Bun
 * needed. The server gets `--exit-with-stdin` and a pipe as stdin that this process never writes: when this
 * process ends, however it ends, the server stops too.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, rmSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import type {
  ConnectEmulatorOptions,
  EmulatorConnection,
  EmulatorEnv,
  Emulator as SharedEmulator,
  StartEmulatorCommonOptions,
} from "../../../client/emulator";
import {
  addressFromEnv,
  COMMON_START_OPTIONS,
  checkOptions,
  type DeployRunner,
  emulatorConnection,
} from "../../../client/emulator-connection";
import { noPlaintextKeyMessage } from "../../../client/emulator-methods";
import { withFreshKeys } from "../../../common/api-key";
import { writePrivateFile } from "../../../common/files/private-file";
import { FIXTURE_JSON_MAX_BYTES, readJsonFile, STATE_FILE_MAX_BYTES } from "../../../common/json/json-reader";
import { helperFetch } from "../../../tools/calls/helper-transport";
import { binaryPath, packageDir } from "../lib/binary.cjs";
import { createWorkDir } from "../lib/temp-dirs.cjs";
import { deployWithBinary } from "./deploy";
import { StartEmulatorError } from "./errors";

export interface StartEmulatorOptions extends StartEmulatorCommonOptions {
  /** The `ext` executable to run; default `EXT_BINARY`, else the installed platform package's. */
  binary?: string;
  /** Give up (and kill the server) when it is not ready after this long; default 30000. */
  startTimeoutMs?: number;
}

/** The shared `Emulator` (client/emulator.ts), plus the server process. */
export interface Emulator extends SharedEmulator {
  /** The server process. */
  pid: number;
}

type Fixture = NonNullable<StartEmulatorOptions["fixture"]>;

const OPTIONS = [...COMMON_START_OPTIONS, "binary", "startTimeoutMs"];
/** What start-up failures quote from the server's stderr, at most. */
const STDERR_CAP = 16 * 1024;
/** How long stop() lets the server drain (it cuts in-flight requests after 5 s itself) before SIGKILL. */
const STOP_GRACE_MS = 10_000;

/** The first API key written in the fixture with a plaintext, as the Bun startEmulator() picks it. */
function firstPlaintextKey(fixture: unknown): string | null {
  const accounts = (fixture as { accounts?: unknown } | null)?.accounts;
  for (const account of Array.isArray(accounts) ? accounts : []) {
    const keys = (account as { apiKeys?: unknown } | null)?.apiKeys;
    for (const k of Array.isArray(keys) ? keys : []) {
      const { key, revokedAt } = (k ?? {}) as { key?: unknown; revokedAt?: unknown };
      // A revoked key (an export keeps a fixture key's plaintext after its revocation) would answer 401.
      if (typeof key === "string" && key && !revokedAt) return key;
    }
  }
  return null;
}

/** The demo fixture: shipped beside the bundle in the package, read from the checkout when run from there. */
function demoFixture(): unknown {
  const file = join(packageDir, "lib/demo-fixture.json");
  if (existsSync(file)) return JSON.parse(readFileSync(file, "utf8"));
  throw new StartEmulatorError("the demo fixture is missing from the ext-emulator package; reinstall it");
}

/** `ext serve --seed` reads a directory as an export: its `fixture.json`, with the bundles beside it. */
const isDirectory = (path: string) => {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
};

interface Seed {
  seed: string;
  apiKey: string | null;
  fromExport: boolean;
}

/**
 * The `--seed` argument and the API key it yields. A string is a file path, an export directory, or "demo"
 * (the fixture embedded in the binary; a file of that name is "./demo"): the rule of `ext serve --seed`.
 */
function seedOf(fixture: Fixture | undefined, work: string): Seed {
  if (fixture === undefined || fixture === "demo") {
    // The demo's keys are public and a test's emulator listens on loopback, which any local user can reach:
    // keys of its own, in a fixture written inside our own temp directory (mode 0700, removed by stop()).
    const fresh = withFreshKeys(demoFixture() as Parameters<typeof withFreshKeys>[0]);
    const file = join(work, "fixture.json");
    writePrivateFile(file, JSON.stringify(fresh), { what: "the fixture" });
    return { seed: file, apiKey: firstPlaintextKey(fresh), fromExport: false };
  }
  if (typeof fixture === "string") {
    const path = resolve(fixture);
    const fromExport = isDirectory(path);
    const file = fromExport ? join(path, "fixture.json") : path;
    let parsed: unknown;
    try {
      // As the server reads it: no link followed, a regular file, within the size and nesting caps.
      parsed = readJsonFile(file, FIXTURE_JSON_MAX_BYTES);
    } catch (e) {
      throw new StartEmulatorError(`cannot read the fixture ${file}: ${(e as Error).message}`);
    }
    return { seed: path, apiKey: firstPlaintextKey(parsed), fromExport };
  }
  if (typeof fixture !== "object" || fixture === null)
    throw new TypeError('startEmulator: fixture must be a fixture object, a file path, an export directory or "demo"');
  // It may hold plaintext keys: written inside our own temp directory (mode 0700), removed by stop().
  const file = join(work, "fixture.json");
  writePrivateFile(file, JSON.stringify(fixture), { what: "the fixture" });
  return { seed: file, apiKey: firstPlaintextKey(fixture), fromExport: false };
}

/**
 * The `--profile` argument: a file path as given (the server reads and checks it), or a profile object written
 * inside our own temp directory (mode 0700, removed by stop()).
 */
function profileArg(profile: StartEmulatorOptions["profile"], work: string): string | null {
  if (profile === undefined) return null;
  if (typeof profile === "string") return resolve(profile);
  if (typeof profile !== "object" || profile === null)
    throw new TypeError("startEmulator: profile must be a profile file's path or a profile object");
  const file = join(work, "profile.json");
  writePrivateFile(file, JSON.stringify(profile));
  return file;
}

/** `ext serve` arguments for these options. */
function serveArgs(o: StartEmulatorOptions, seed: string, ready: string, profile: string | null): string[] {
  const args = ["serve", "--port", String(o.port ?? 0), "--host", o.host ?? "127.0.0.1"];
  args.push("--seed", seed, "--ready-file", ready, "--exit-with-stdin");
  args.push(...(o.dataDir === undefined ? ["--memory"] : ["--data-dir", resolve(o.dataDir)]));
  args.push("--log-level", o.logLevel ?? "silent");
  // Off unless asked for, as the Bun helper (client/emulator.ts, `rateLimits`).
  if (o.rateLimits !== true) args.push("--no-rate-limits");
  if (o.autoApproveMs !== undefined && o.autoApproveMs !== null) args.push(`--auto-approve=${o.autoApproveMs}`);
  if (profile !== null) args.push("--profile", profile);
  return args;
}

/** Our environment without EXT_* settings (flags alone decide, as for the Bun startEmulator()), plus the admin token. */
function childEnv(adminToken: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("EXT_")) env[k] = v;
  // An environment variable, not --admin-token: a flag shows in `ps`.
  env.EXT_ADMIN_TOKEN = adminToken;
  return env;
}

/** The deploy core as the binary runs it (deploy.ts). */
const binaryDeploy =
  (binary?: string): DeployRunner =>
  (at, folder, options) =>
    deployWithBinary(binary, at, folder, options);

export type { ConnectEmulatorOptions };

/**
 * An emulator started elsewhere (a test runner's global setup), from the variables of `emulator.env` (the
 * names `ext exec` sets): EXT_BASE_URL, EXT_ADMIN_URL, EXT_API_KEY, EXT_ADMIN_TOKEN. The token may be left
 * out only for a server started with --open-control-plane.
 */
export function connectEmulator(
  env: Partial<EmulatorEnv> | Record<string, string | undefined> = process.env,
  options: ConnectEmulatorOptions = {},
): EmulatorConnection {
  const at = addressFromEnv(env, options);
  return emulatorConnection(at, binaryDeploy(), { fetch: helperFetch(at.url, at.adminToken, "connectEmulator") });
}

/**
 * Spawns `ext serve --memory --port 0` (options permitting) and resolves once it is listening. The server
 * stops when this process exits, even by SIGKILL; `stop()` ends it sooner. Environment variables EXT_* are
 * not passed to it: the options alone decide.
 */
export async function startEmulator(options: StartEmulatorOptions = {}): Promise<Emulator> {
  checkOptions("startEmulator", options, OPTIONS);
  const bin = options.binary ?? binaryPath();
  const work = createWorkDir();
  const cleanup = () => rmSync(work, { recursive: true, force: true });
  let seed: Seed;
  let profile: string | null;
  try {
    seed = seedOf(options.fixture, work);
    profile = profileArg(options.profile, work);
  } catch (e) {
    cleanup();
    throw e;
  }
  const apiKey = seed.apiKey;
  if (!apiKey) {
    cleanup();
    throw new StartEmulatorError(noPlaintextKeyMessage(seed.fromExport ? seed.seed : null));
  }
  const ready = join(work, "ready.json");
  const adminToken = randomBytes(24).toString("base64url");
  const child = spawn(bin, serveArgs(options, seed.seed, ready, profile), {
    env: childEnv(adminToken),
    stdio: ["pipe", "ignore", "pipe"],
    windowsHide: true,
  });
  let stderr = "";
  let started = false;
  const forward = options.logLevel !== undefined && options.logLevel !== "silent";
  child.stderr?.on("data", (chunk) => {
    if (!started) stderr = (stderr + chunk).slice(0, STDERR_CAP);
    else if (forward) process.stderr.write(chunk);
  });
  /** Set by the child's events; an object, so the loop below sees what the callbacks wrote. */
  const state: { exited: { code: number | null; signal: NodeJS.Signals | null } | null; spawnError: Error | null } = {
    exited: null,
    spawnError: null,
  };
  const exit = new Promise<void>((done) => {
    child.on("exit", (code, signal) => {
      state.exited = { code, signal };
      done();
    });
    child.on("error", (e) => {
      state.spawnError = e;
      state.exited ??= { code: null, signal: null };
      done();
    });
  });
  // The stdin pipe is the parent-death signal: an EPIPE from a server that already stopped is no error here.
  child.stdin?.on("error", () => {});

  const timeoutMs = options.startTimeoutMs ?? 30_000;
  const deadline = performance.now() + timeoutMs;
  while (!existsSync(ready)) {
    if (state.exited || performance.now() > deadline) {
      const timedOut = !state.exited;
      if (timedOut) child.kill("SIGKILL");
      await exit;
      cleanup();
      // Let the stderr pipe deliver what the server said before it exited.
      await new Promise((r) => (child.stderr && !child.stderr.closed ? child.stderr.once("close", r) : r(undefined)));
      const { exited, spawnError } = state;
      const why = spawnError
        ? `could not run ${bin}: ${spawnError.message}`
        : timedOut
          ? `ext serve was not ready after ${timeoutMs} ms`
          : `ext serve exited (${exited?.signal ?? `code ${exited?.code}`})`;
      throw new StartEmulatorError(`${why}${stderr.trim() ? `: ${stderr.trim()}` : ""}`);
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  started = true;
  const info = readJsonFile(ready, STATE_FILE_MAX_BYTES) as {
    url: string;
    baseUrl: string;
    adminUrl: string;
    port: number;
    pid: number;
    adminToken?: string;
  };
  // A test that forgets stop() must not keep its process alive; the server still stops when it exits.
  child.unref();
  (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  (child.stderr as unknown as { unref?: () => void } | null)?.unref?.();

  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      if (!state.exited) {
        child.ref(); // keep the process alive while we wait for the server
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), STOP_GRACE_MS);
        await exit;
        clearTimeout(timer);
      }
      cleanup();
    })());
  // The server's own word for its token (the one we gave it, unless it was started otherwise).
  const token = typeof info.adminToken === "string" && info.adminToken ? info.adminToken : adminToken;
  const at = { url: info.url, baseUrl: info.baseUrl, adminUrl: info.adminUrl, apiKey, adminToken: token };
  // Once the server has exited (stopped, or died), its port may be anyone's: nothing more is sent there.
  const connection = emulatorConnection(at, binaryDeploy(bin), {
    fetch: helperFetch(at.url, at.adminToken, "startEmulator"),
    who: "startEmulator",
    stopped: () => stopping !== null || state.exited !== null,
  });
  return {
    ...connection,
    port: info.port,
    pid: info.pid,
    stop,
  };
}
