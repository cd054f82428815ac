// @ts-check
/**
 * `startEmulator()` for Node (and any runtime with child processes): spawns the native `ext serve` in memory
 * mode on a free port, resolves once its ready file appears, and drives the control plane (/_emulator)
 * over HTTP. No Bun needed. The server gets `--exit-with-stdin` and a pipe as stdin that this process
 * never writes: when this process ends, however it ends, the server stops too.
 */
"use strict";
const { spawn } = require("node:child_process");
const { randomBytes } = require("node:crypto");
const { existsSync, readFileSync, rmSync, writeFileSync } = require("node:fs");
const { join, resolve } = require("node:path");
const { binaryPath } = require("./binary.cjs");
const { createWorkDir } = require("./temp-dirs.cjs");
const { httpClient } = require("./http.cjs");

/** @typedef {import("../index").StartEmulatorOptions} StartEmulatorOptions */
/** @typedef {import("../index").Emulator} Emulator */
/** @typedef {import("../index").EmulatorClient} EmulatorClient */
/** @typedef {import("../index").EmulatorEnv} EmulatorEnv */
/** @typedef {import("../index").Fixture} Fixture */

const OPTIONS = [
  "fixture",
  "dataDir",
  "port",
  "host",
  "rateLimits",
  "autoApproveMs",
  "logLevel",
  "binary",
  "startTimeoutMs",
];
/** What start-up failures quote from the server's stderr, at most. */
const STDERR_CAP = 16 * 1024;
/** How long stop() lets the server drain (it cuts in-flight requests after 5 s itself) before SIGKILL. */
const STOP_GRACE_MS = 10_000;

class StartEmulatorError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = "StartEmulatorError";
  }
}

class ControlPlaneError extends Error {
  /** @param {string} method @param {string} path @param {number} status @param {string} code @param {string} message */
  constructor(method, path, status, code, message) {
    super(`${method} /_emulator${path}: ${status} ${code}: ${message}`);
    this.name = "ControlPlaneError";
    this.status = status;
    this.code = code;
  }
}

/** The first API key written in the fixture with a plaintext, as the Bun startEmulator() picks it. @param {Fixture} fixture */
function firstPlaintextKey(fixture) {
  for (const account of fixture?.accounts ?? [])
    for (const k of account?.apiKeys ?? []) if (typeof k?.key === "string" && k.key) return k.key;
  return null;
}

/** The demo fixture: shipped beside this file in the package, read from the checkout when run from there. */
function demoFixture() {
  for (const file of [join(__dirname, "demo-fixture.json"), join(__dirname, "../../../fixtures/demo.json")]) {
    if (existsSync(file)) return /** @type {Fixture} */ (JSON.parse(readFileSync(file, "utf8")));
  }
  throw new StartEmulatorError("the demo fixture is missing from the ext-emulator package; reinstall it");
}

/**
 * The `--seed` argument and the API key it yields. A string is a file path, or "demo" (the fixture embedded
 * in the binary) unless a file really named "demo" exists: the rule of `ext serve --seed`.
 * @param {Fixture | string | undefined} fixture @param {string} work
 */
function seedOf(fixture, work) {
  if (fixture === undefined || (fixture === "demo" && !existsSync(resolve("demo"))))
    return { seed: "demo", apiKey: firstPlaintextKey(demoFixture()) };
  if (typeof fixture === "string") {
    const file = resolve(fixture);
    let parsed;
    try {
      parsed = JSON.parse(readFileSync(file, "utf8"));
    } catch (e) {
      throw new StartEmulatorError(`cannot read the fixture ${file}: ${/** @type {Error} */ (e).message}`);
    }
    return { seed: file, apiKey: firstPlaintextKey(parsed) };
  }
  if (typeof fixture !== "object" || fixture === null)
    throw new TypeError('startEmulator: fixture must be a fixture object, a file path or "demo"');
  // It may hold plaintext keys: written inside our own temp directory (mode 0700), removed by stop().
  const file = join(work, "fixture.json");
  writeFileSync(file, JSON.stringify(fixture), { mode: 0o600 });
  return { seed: file, apiKey: firstPlaintextKey(fixture) };
}

/** `ext serve` arguments for these options. @param {StartEmulatorOptions} o @param {string} seed @param {string} ready */
function serveArgs(o, seed, ready) {
  const args = [
    "serve",
    "--port",
    String(o.port ?? 0),
    "--host",
    o.host ?? "127.0.0.1",
    "--seed",
    seed,
    "--ready-file",
    ready,
    "--exit-with-stdin",
  ];
  args.push(...(o.dataDir === undefined ? ["--memory"] : ["--data-dir", resolve(o.dataDir)]));
  args.push("--log-level", o.logLevel ?? "silent");
  if (o.rateLimits === false) args.push("--no-rate-limits");
  if (o.autoApproveMs !== undefined && o.autoApproveMs !== null) args.push(`--auto-approve=${o.autoApproveMs}`);
  return args;
}

/** Our environment without EXT_* settings (flags alone decide, as for the Bun startEmulator()), plus the admin token. @param {string} adminToken */
function childEnv(adminToken) {
  /** @type {NodeJS.ProcessEnv} */
  const env = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("EXT_")) env[k] = v;
  // An environment variable, not --admin-token: a flag shows in `ps`.
  env.EXT_ADMIN_TOKEN = adminToken;
  return env;
}

/**
 * The control-plane calls, for an emulator this process started or one it reaches by URL.
 * @param {{ url: string; baseUrl: string; adminUrl: string; apiKey: string; adminToken: string }} at
 * @param {import("./http.cjs").HttpSend} send
 * @returns {EmulatorClient}
 */
function controlClient(at, send) {
  /** @type {EmulatorClient["control"]} */
  const control = async (method, path, body) => {
    /** @type {Record<string, string>} */
    const headers = { authorization: `Bearer ${at.adminToken}` };
    if (body !== undefined) headers["content-type"] = "application/json";
    let res;
    try {
      res = await send(method, at.adminUrl + path, headers, body === undefined ? undefined : JSON.stringify(body));
    } catch (e) {
      // No answer at all (the server is gone, a wrong URL): say where, keep the socket error as the cause.
      throw new Error(
        `${method} ${at.adminUrl}${path}: no answer from the emulator (${/** @type {Error} */ (e).message})`,
        { cause: e },
      );
    }
    const text = res.text;
    /** @type {any} */
    let json;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    if (!res.ok)
      throw new ControlPlaneError(
        method,
        path,
        res.status,
        json?.error?.code ?? "unknown",
        json?.error?.message ?? text.slice(0, 300),
      );
    return json;
  };
  const id = (/** @type {string} */ s) => encodeURIComponent(s);
  return {
    url: at.url,
    baseUrl: at.baseUrl,
    adminUrl: at.adminUrl,
    apiKey: at.apiKey,
    adminToken: at.adminToken,
    env: {
      EXT_BASE_URL: at.baseUrl,
      EXT_LOCAL_URL: at.baseUrl,
      EXT_ADMIN_URL: at.adminUrl,
      EXT_API_KEY: at.apiKey,
      EXT_ADMIN_TOKEN: at.adminToken,
    },
    control,
    reset: async () => void (await control("POST", "/reset", {})),
    advanceClock: async (seconds) => void (await control("POST", "/clock", { advanceSeconds: seconds })),
    approveVersion: (versionId) => control("POST", `/versions/${id(versionId)}/approve`),
    rejectVersion: (versionId, reason) => control("POST", `/versions/${id(versionId)}/reject`, { reason }),
    addInstalls: (extensionId, what = {}) =>
      control("POST", `/extensions/${id(extensionId)}/installs`, typeof what === "number" ? { count: what } : what),
    setOverride: (target, limits) =>
      "extensionId" in target
        ? control("PUT", `/overrides/extensions/${id(target.extensionId)}`, limits)
        : control("PUT", `/overrides/accounts/${id(target.accountId)}`, limits),
    injectFault: async (rule) => (await control("POST", "/faults", rule)).fault,
    requests: async (limit) =>
      (await control("GET", `/requests${limit === undefined ? "" : `?limit=${limit}`}`)).requests,
  };
}

/**
 * The control plane of an emulator started elsewhere (a test runner's global setup), from the variables of
 * `emulator.env` (the names `ext exec` sets): EXT_BASE_URL, EXT_ADMIN_URL, EXT_API_KEY, EXT_ADMIN_TOKEN.
 * @param {Partial<EmulatorEnv> | NodeJS.ProcessEnv} [env]
 * @returns {EmulatorClient}
 */
function connectEmulator(env = process.env) {
  const { EXT_BASE_URL: baseUrl, EXT_ADMIN_URL: adminUrl, EXT_API_KEY: apiKey, EXT_ADMIN_TOKEN: adminToken } = env;
  const missing = Object.entries({ EXT_BASE_URL: baseUrl, EXT_ADMIN_URL: adminUrl, EXT_API_KEY: apiKey })
    .filter(([, v]) => !v)
    .map(([k]) => k);
  if (missing.length)
    throw new StartEmulatorError(
      `connectEmulator: ${missing.join(", ")} not set; pass emulator.env from startEmulator() (or run under ext exec)`,
    );
  const at = {
    url: String(adminUrl).replace(/\/_emulator$/, ""),
    baseUrl: String(baseUrl),
    adminUrl: String(adminUrl),
    apiKey: String(apiKey),
    adminToken: adminToken ?? "",
  };
  return controlClient(at, httpClient().send);
}

/** @param {number} ms */
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * @param {StartEmulatorOptions} [options]
 * @returns {Promise<Emulator>}
 */
async function startEmulator(options = {}) {
  for (const key of Object.keys(options))
    if (!OPTIONS.includes(key))
      throw new TypeError(`startEmulator: unknown option "${key}" (known: ${OPTIONS.join(", ")})`);
  const bin = options.binary ?? binaryPath();
  const work = createWorkDir();
  const cleanup = () => rmSync(work, { recursive: true, force: true });
  let seed;
  try {
    seed = seedOf(options.fixture, work);
  } catch (e) {
    cleanup();
    throw e;
  }
  if (!seed.apiKey) {
    cleanup();
    throw new StartEmulatorError(
      'the fixture has no API key with a plaintext "key"; add one so startEmulator can return it',
    );
  }
  const ready = join(work, "ready.json");
  const adminToken = randomBytes(24).toString("base64url");
  const child = spawn(bin, serveArgs(options, seed.seed, ready), {
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
  /** @type {{ exited: { code: number | null; signal: NodeJS.Signals | null } | null; spawnError: Error | null }} */
  const state = { exited: null, spawnError: null };
  const exit = new Promise((done) => {
    child.on("exit", (code, signal) => {
      state.exited = { code, signal };
      done(undefined);
    });
    child.on("error", (e) => {
      state.spawnError = e;
      state.exited ??= { code: null, signal: null };
      done(undefined);
    });
  });
  // The stdin pipe is the parent-death signal: an EPIPE from a server that already stopped is no error here.
  child.stdin?.on("error", () => {});

  const deadline = performance.now() + (options.startTimeoutMs ?? 30_000);
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
          ? `ext serve was not ready after ${options.startTimeoutMs ?? 30_000} ms`
          : `ext serve exited (${exited?.signal ?? `code ${exited?.code}`})`;
      throw new StartEmulatorError(`${why}${stderr.trim() ? `: ${stderr.trim()}` : ""}`);
    }
    await sleep(5);
  }
  started = true;
  const info = JSON.parse(readFileSync(ready, "utf8"));
  // A test that forgets stop() must not keep its process alive; the server still stops when it exits.
  child.unref();
  // @ts-ignore: child-process pipes are net.Socket, which has unref()
  child.stdin?.unref?.();
  // @ts-ignore
  child.stderr?.unref?.();

  /** @type {Promise<void> | null} */
  let stopping = null;
  const stop = () =>
    (stopping ??= (async () => {
      if (!state.exited) {
        child.ref(); // keep the process alive while we wait for the server
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), STOP_GRACE_MS);
        await exit;
        clearTimeout(timer);
      }
      client.close();
      cleanup();
    })());

  const client = httpClient();
  return {
    ...controlClient(
      { url: info.url, baseUrl: info.baseUrl, adminUrl: info.adminUrl, apiKey: seed.apiKey, adminToken },
      client.send,
    ),
    port: info.port,
    pid: info.pid,
    stop,
  };
}

module.exports = { startEmulator, connectEmulator, StartEmulatorError, ControlPlaneError };
