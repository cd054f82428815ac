/**
 * The npm package's Node side, run by plain `node` (no Bun in the script's process) against the compiled
 * binary: `startEmulator()` and its control plane, no orphan however the Node process ends, start-up
 * errors, and the `ext` launcher (arguments, exit codes, signals, the one-line hint when no binary is found).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { alive, BUILD_TIMEOUT_MS, type Built, buildBinary, cleanEnv, goneSoon } from "../binary/helpers";
import { sharedNodeHelper } from "../helpers/build-cache";
import { waitFor } from "../helpers/wait-for";

let PKG: string;
let INDEX: string;
let LAUNCHER: string;
let built: Built;

beforeAll(async () => {
  built = buildBinary();
  // The package as `npm run package` builds it: the helper bundled from packaging/npm/src, its declarations.
  PKG = await sharedNodeHelper();
  INDEX = pathToFileURL(join(PKG, "index.mjs")).href;
  LAUNCHER = join(PKG, "bin/ext.cjs");
}, BUILD_TIMEOUT_MS);
afterAll(() => built?.cleanup());

interface NodeRun {
  proc: ReturnType<typeof Bun.spawn>;
  /** stdout lines as they arrive */
  lines: AsyncIterator<string>;
}

/** `node script.mjs` in a fresh directory, with EXT_BINARY pointing at the compiled binary. */
function node(script: string, env: Record<string, string> = {}): NodeRun {
  const dir = mkdtempSync(join(built.work, "node-"));
  writeFileSync(join(dir, "script.mjs"), `import * as ext from ${JSON.stringify(INDEX)};\n${script}`);
  const proc = Bun.spawn(["node", "script.mjs"], {
    cwd: dir,
    env: cleanEnv({ EXT_BINARY: built.bin, ...env }),
    stdout: "pipe",
    stderr: "pipe",
  });
  async function* lines() {
    let buf = "";
    for await (const chunk of proc.stdout as ReadableStream<Uint8Array>) {
      buf += new TextDecoder().decode(chunk);
      for (let i = buf.indexOf("\n"); i >= 0; i = buf.indexOf("\n")) {
        yield buf.slice(0, i);
        buf = buf.slice(i + 1);
      }
    }
  }
  return { proc, lines: lines() };
}

async function nextLine(run: NodeRun): Promise<string> {
  const { value, done } = await run.lines.next();
  if (done)
    throw new Error(
      `node exited (${await run.proc.exited}) before printing: ${await new Response(run.proc.stderr as ReadableStream).text()}`,
    );
  return value;
}

/** Runs a script to its end; its last stdout line is JSON. */
async function nodeResult(
  script: string,
  env: Record<string, string> = {},
): Promise<{ code: number; result: any; stderr: string }> {
  const run = node(script, env);
  const [stdout, stderr] = await Promise.all([
    new Response(run.proc.stdout as ReadableStream).text(),
    new Response(run.proc.stderr as ReadableStream).text(),
  ]);
  const code = await run.proc.exited;
  const last = stdout.trim().split("\n").pop() ?? "";
  let result: unknown;
  try {
    result = JSON.parse(last);
  } catch {
    throw new Error(`no JSON result (exit ${code}): ${stdout}\n${stderr}`);
  }
  return { code, result, stderr };
}

describe("startEmulator() under Node", () => {
  test("creates and lists an extension, drives the control plane, stops (twice) and leaves no process or temp file", async () => {
    const tmp = mkdtempSync(join(built.work, "tmp-"));
    const { code, result, stderr } = await nodeResult(
      `
      const emu = await ext.startEmulator();
      const h = { authorization: "Bearer " + emu.apiKey, "content-type": "application/json" };
      const created = await (await fetch(emu.baseUrl + "/extensions", { method: "POST", headers: h, body: JSON.stringify({ name: "Sound Board" }) })).json();
      const listed = await (await fetch(emu.baseUrl + "/extensions", { headers: h })).json();
      const id = created.extension.id;
      const override = await emu.setOverride({ extensionId: id }, { max_sounds_per_extension: 80 });
      const limits = await (await fetch(emu.baseUrl + "/extensions/" + id + "/limits", { headers: h })).json();
      const fault = await emu.injectFault({ method: "GET", path: "/extensions", status: 503, code: "maintenance", times: 1 });
      const faulted = (await fetch(emu.baseUrl + "/extensions", { headers: h })).status;
      const asOwner = { headers: { authorization: "Bearer " + emu.adminToken } };
      const before = (await (await fetch(emu.adminUrl + "/clock", asOwner)).json()).now;
      await emu.advanceClock(3600);
      const after = (await (await fetch(emu.adminUrl + "/clock", asOwner)).json()).now;
      const requests = await emu.requests(2);
      let approveError;
      try { await emu.approveVersion("ver_missing"); } catch (e) { approveError = { name: e.name, status: e.status, code: e.code }; }
      await emu.reset();
      const afterReset = await (await fetch(emu.baseUrl + "/extensions", { headers: h })).json();
      await emu.stop();
      await emu.stop();
      console.log(JSON.stringify({ pid: emu.pid, port: emu.port, url: emu.url, baseUrl: emu.baseUrl, adminUrl: emu.adminUrl, apiKey: emu.apiKey, env: emu.env,
        listed: listed.extensions.map((e) => e.name), override, limits, fault, faulted, clock: Date.parse(after) - Date.parse(before), requests, approveError, afterReset }));
    `,
      { TMPDIR: tmp },
    );
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(result.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/developer\/v1$/);
    expect(result.url).toBe(`http://127.0.0.1:${result.port}`);
    expect(result.adminUrl).toBe(`${result.url}/_emulator`);
    // A fresh key for the demo account: its public one (in the README) is not the emulator's.
    expect(result.apiKey).toMatch(/^ext_[0-9A-Za-z]{40}$/);
    expect(result.env).toMatchObject({
      EXT_BASE_URL: result.baseUrl,
      EXT_LOCAL_URL: result.baseUrl,
      EXT_ADMIN_URL: result.adminUrl,
      EXT_API_KEY: result.apiKey,
    });
    expect(result.listed).toEqual(["Sound Board"]);
    expect(result.override.overrides).toEqual({ max_sounds_per_extension: 80 });
    expect(JSON.stringify(result.limits)).toContain("extension_override");
    expect(result.fault).toMatchObject({ status: 503, code: "maintenance", times: 1 });
    expect(result.faulted).toBe(503);
    expect(result.clock).toBeGreaterThanOrEqual(3_599_000);
    expect(result.requests.map((r: { status: number }) => r.status)).toEqual([503, 200]);
    expect(result.approveError).toEqual({ name: "ApiCallError", status: 404, code: "version_not_found" });
    expect(result.afterReset).toEqual({ extensions: [] });
    expect(await goneSoon(result.pid)).toBe(true);
    expect(readdirSync(tmp)).toEqual([]);
  }, 30_000);

  test("a fixture object: its first plaintext key, its data; approve, reject and installs through the control plane", async () => {
    const fixture = {
      accounts: [
        {
          id: "acc_a",
          name: "A",
          apiKeys: [{ name: "k", key: "ext_test_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", scopes: ["*"] }],
          extensions: [{ id: "ext_one", name: "One" }],
        },
      ],
    };
    const { code, result, stderr } = await nodeResult(`
      const emu = await ext.startEmulator({ fixture: ${JSON.stringify(fixture)}, rateLimits: false });
      const h = { authorization: "Bearer " + emu.apiKey };
      const listed = await (await fetch(emu.baseUrl + "/extensions", { headers: h })).json();
      let rejectError;
      try { await emu.rejectVersion("ver_missing", "no"); } catch (e) { rejectError = e.status; }
      let installError;
      try { await emu.addInstalls("ext_one", 2); } catch (e) { installError = e.status; }
      await emu.stop();
      console.log(JSON.stringify({ apiKey: emu.apiKey, listed: listed.extensions.map((e) => e.id), rejectError, installError }));
    `);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(result).toEqual({
      apiKey: "ext_test_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
      listed: ["ext_one"],
      rejectError: 404,
      installError: 409,
    });
  }, 30_000);

  test("snapshot() and restore() through the control plane: the state at the snapshot, again and again", async () => {
    const { code, result, stderr } = await nodeResult(`
      const emu = await ext.startEmulator({ rateLimits: false });
      const h = { authorization: "Bearer " + emu.apiKey };
      const list = async () => (await fetch(emu.baseUrl + "/extensions", { headers: h })).text();
      await emu.createExtension({ name: "Kept" });
      const at = await list();
      const snap = await emu.snapshot();
      await emu.createExtension({ name: "Dropped" });
      const changed = (await list()) !== at;
      await emu.restore(snap);
      const first = (await list()) === at;
      await emu.createExtension({ name: "Dropped Again" });
      await emu.restore(snap);
      const second = (await list()) === at;
      await emu.stop();
      console.log(JSON.stringify({ id: snap.id.slice(0, 5), changed, first, second }));
    `);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(result).toEqual({ id: "snap_", changed: true, first: true, second: true });
  }, 30_000);

  test("EXT_* variables of the calling process do not reach the server", async () => {
    const { code, result } = await nodeResult(
      `const emu = await ext.startEmulator();
       const state = await (await fetch(emu.adminUrl + "/state", { headers: { authorization: "Bearer " + emu.adminToken } })).json();
       await emu.stop();
       console.log(JSON.stringify({ port: emu.port, rateLimits: state.rateLimits }));`,
      { EXT_SEED: "/nonexistent.json", EXT_RATE_LIMITS: "on", EXT_PORT: "4999", EXT_MEMORY: "off" },
    );
    expect(code).toBe(0);
    expect(result.rateLimits).toBe(false);
    expect(result.port).not.toBe(4999);
  }, 30_000);

  test("start-up errors reject with the server's own message; unknown options and key-less fixtures are refused", async () => {
    const { code, result } = await nodeResult(`
      const { mkdirSync, symlinkSync } = await import("node:fs");
      const out = {};
      const fail = async (name, options) => { try { await ext.startEmulator(options); out[name] = "started"; } catch (e) { out[name] = e.name + ": " + e.message; } };
      await fail("badFixture", { fixture: { accounts: [{ id: "acc_x", apiKeys: [{ name: "k", key: "ext_x_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", scopes: ["nope"] }] }] } });
      await fail("noKey", { fixture: { accounts: [{ id: "acc_x", name: "X" }] } });
      await fail("unknownOption", { fixtrue: "demo" });
      await fail("missingFile", { fixture: "no-such-fixture.json" });
      // An export directory whose fixture.json is a link to /dev/zero: refused, never read.
      mkdirSync("zero-export");
      symlinkSync("/dev/zero", "zero-export/fixture.json");
      await fail("zeroLink", { fixture: "zero-export" });
      await fail("badBinary", { binary: "/nonexistent/ext" });
      console.log(JSON.stringify(out));
    `);
    expect(code).toBe(0);
    expect(result.badFixture).toStartWith("StartEmulatorError: ext serve exited (code 2)");
    expect(result.badFixture).toContain("scopes[0]");
    expect(result.noKey).toContain('no active API key with a plaintext "key"');
    expect(result.unknownOption).toBe(
      'TypeError: startEmulator: unknown option "fixtrue" (known: fixture, dataDir, port, host, rateLimits, autoApproveMs, logLevel, profile, binary, startTimeoutMs)',
    );
    expect(result.missingFile).toStartWith("StartEmulatorError: cannot read the fixture");
    expect(result.zeroLink).toEndWith("zero-export/fixture.json: is a symbolic link (links are not followed)");
    expect(result.badBinary).toStartWith("StartEmulatorError: could not run /nonexistent/ext");
  }, 30_000);

  test("SIGKILL of the Node process: the server is gone soon after", async () => {
    const run = node(`const emu = await ext.startEmulator(); console.log(emu.pid); setInterval(() => {}, 60_000);`);
    const pid = Number(await nextLine(run));
    expect(alive(pid)).toBe(true);
    run.proc.kill("SIGKILL");
    await run.proc.exited;
    expect(await goneSoon(pid)).toBe(true);
  }, 30_000);

  test("a Node process killed without stop() leaves its private folder (fixture keys) behind: the next start removes it", async () => {
    const tmp = mkdtempSync(join(built.work, "tmp-"));
    const run = node(
      `const fixture = { accounts: [{ id: "acc_k", name: "K", apiKeys: [{ name: "ci", key: "ext_helper_left_key_0123456789abcdef", scopes: ["*"] }] }] };
      const emu = await ext.startEmulator({ fixture }); console.log(JSON.stringify({ pid: emu.pid })); setInterval(() => {}, 60_000);`,
      { TMPDIR: tmp },
    );
    const { pid } = JSON.parse(await nextLine(run));
    const left = readdirSync(tmp).filter((f) => f.startsWith("ext-emulator-"));
    expect(left).toHaveLength(1);
    const folder = join(tmp, left[0]!);
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    expect(statSync(join(folder, "fixture.json")).mode & 0o777).toBe(0o600);
    run.proc.kill("SIGKILL");
    await run.proc.exited;
    expect(await goneSoon(pid)).toBe(true);
    expect(existsSync(folder)).toBe(true);
    // Named like one, but not ours to judge: a symlink, and a folder open to others.
    const victim = mkdtempSync(join(built.work, "victim-"));
    symlinkSync(victim, join(tmp, "ext-emulator-1-planted"));
    mkdirSync(join(tmp, "ext-emulator-1-open"), { mode: 0o777 });
    chmodSync(join(tmp, "ext-emulator-1-open"), 0o777);

    const { code, result } = await nodeResult(
      `const emu = await ext.startEmulator(); await emu.stop(); console.log(JSON.stringify({ ok: true }));`,
      { TMPDIR: tmp },
    );
    expect({ code, result }).toEqual({ code: 0, result: { ok: true } });
    expect(existsSync(folder)).toBe(false);
    expect(readdirSync(tmp).sort()).toEqual(["ext-emulator-1-open", "ext-emulator-1-planted"]);
    expect(existsSync(victim)).toBe(true);
  }, 30_000);

  test("a script that forgets stop() still ends (its idle control-plane connection included), and takes the server with it", async () => {
    const { code, result } = await nodeResult(
      `const emu = await ext.startEmulator(); await emu.reset(); await emu.reset(); console.log(JSON.stringify({ pid: emu.pid }));`,
    );
    expect(code).toBe(0);
    expect(await goneSoon(result.pid)).toBe(true);
  }, 30_000);

  test("connectEmulator() reaches an emulator from its env, and says which variable is missing", async () => {
    const { code, result } = await nodeResult(`
      const emu = await ext.startEmulator();
      const client = ext.connectEmulator(emu.env);
      await client.advanceClock(60);
      const requests = await client.requests();
      let missing;
      try { ext.connectEmulator({}); } catch (e) { missing = e.message; }
      await emu.stop();
      console.log(JSON.stringify({ same: client.baseUrl === emu.baseUrl && client.apiKey === emu.apiKey, requests, missing }));
    `);
    expect(code).toBe(0);
    expect(result).toMatchObject({ same: true, requests: [] });
    expect(result.missing).toContain("EXT_BASE_URL, EXT_ADMIN_URL, EXT_API_KEY not set");
  }, 30_000);

  test("connectEmulator() sends the admin token: from EXT_ADMIN_TOKEN, or the adminToken option; none is refused", async () => {
    const { code, result } = await nodeResult(`
      const emu = await ext.startEmulator();
      const { EXT_ADMIN_TOKEN, ...withoutToken } = emu.env;
      const status = (c) => c.admin.GET("/_emulator/state").then((r) => r.response.status);
      const fromEnv = await status(ext.connectEmulator(emu.env));
      const fromOption = await status(ext.connectEmulator(withoutToken, { adminToken: EXT_ADMIN_TOKEN }));
      const none = await status(ext.connectEmulator(withoutToken));
      await emu.stop();
      console.log(JSON.stringify({ fromEnv, fromOption, none }));
    `);
    expect(code).toBe(0);
    expect(result).toEqual({ fromEnv: 200, fromOption: 200, none: 401 });
  }, 30_000);

  test("a control-plane call to an emulator that is gone says where it went and why, with the socket error as its cause", async () => {
    const { code, result } = await nodeResult(`
      const emu = await ext.startEmulator();
      const client = ext.connectEmulator(emu.env);
      await emu.stop();
      let error;
      try { await client.reset(); } catch (e) { error = { message: e.message, cause: e.cause?.code, controlPlane: e instanceof ext.ApiCallError }; }
      console.log(JSON.stringify({ error, url: emu.url }));
    `);
    expect(code).toBe(0);
    // A new connection is proven before the token goes anywhere: it finds nobody, and the call says so.
    expect(result.error.message).toBe(
      `POST ${result.url}/_emulator/reset: no answer from the emulator (${result.error.message.match(/\((.*)\)$/)[1]})`,
    );
    expect(result.error.cause).toBe("ECONNREFUSED");
    expect(result.error.controlPlane).toBe(false);
  }, 30_000);

  test("require() gets the same API (the CommonJS entry)", async () => {
    const proc = Bun.spawn(
      [
        "node",
        "-e",
        `const m = require(${JSON.stringify(join(PKG, "index.cjs"))}); console.log(Object.keys(m).sort().join(","))`,
      ],
      { env: cleanEnv(), stdout: "pipe" },
    );
    expect((await new Response(proc.stdout).text()).trim()).toBe(
      "ApiCallError,BinaryNotFoundError,ControlPlaneError,StartEmulatorError,binaryPath,connectEmulator,createAdminClient,createApiClient,readEvents,startEmulator,unwrap",
    );
    expect(await proc.exited).toBe(0);
  });
});

describe("the ext launcher (bin/ext.cjs)", () => {
  const launch = (args: string[], env: Record<string, string> = { EXT_BINARY: built.bin }) =>
    Bun.spawn(["node", LAUNCHER, ...args], { cwd: built.work, env: cleanEnv(env), stdout: "pipe", stderr: "pipe" });

  test("runs the binary with the arguments given and passes its exit code on", async () => {
    const version = launch(["--version"]);
    expect(await new Response(version.stdout).text()).toMatch(
      /^\d+\.\d+\.\d+ \(commit [0-9a-f]+(-dirty)?, bun \d+\.\d+\.\d+\)\n$/,
    );
    expect(await version.exited).toBe(0);
    expect(await launch(["exec", "--", "sh", "-c", "exit 3"]).exited).toBe(3);
    expect(await launch(["no-such-command"]).exited).toBe(2);
  });

  test("a SIGTERM to the launcher reaches the binary, and the launcher ends as the binary did", async () => {
    const dir = mkdtempSync(join(built.work, "launcher-"));
    const proc = Bun.spawn(["node", LAUNCHER, "exec", "--", "sh", "-c", `echo $$ > ${dir}/pid; exec sleep 60`], {
      cwd: dir,
      env: cleanEnv({ EXT_BINARY: built.bin }),
      stdout: "pipe",
      stderr: "pipe",
    });
    const pidFile = join(dir, "pid");
    const written = () => existsSync(pidFile) && readFileSync(pidFile, "utf8").endsWith("\n");
    await waitFor(written, "the command's pid file");
    const command = Number(readFileSync(pidFile, "utf8"));
    proc.kill("SIGTERM");
    // ext exec forwards it to the command and exits 128 + 15; the launcher exits with that code, not by the signal.
    expect(await proc.exited).toBe(143);
    expect(proc.signalCode).toBeNull();
    expect(await goneSoon(command)).toBe(true);
  }, 30_000);

  test("EXT_BINARY=ext with a file ./ext and the launcher on PATH: resolved against the working directory, never run through PATH", async () => {
    // node_modules/.bin/ext is the launcher: a bare name looked up on PATH would run it again, forever.
    const dir = mkdtempSync(join(built.work, "loop-"));
    mkdirSync(join(dir, "node_modules/.bin"), { recursive: true });
    symlinkSync(LAUNCHER, join(dir, "node_modules/.bin/ext"));
    copyFileSync(built.bin, join(dir, "ext"));
    const env = (extra: Record<string, string>) =>
      cleanEnv({ PATH: `${join(dir, "node_modules/.bin")}:${process.env.PATH}`, ...extra });
    const viaFile = Bun.spawn(["node", LAUNCHER, "--version"], {
      cwd: dir,
      env: env({ EXT_BINARY: "ext" }),
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(await new Response(viaFile.stdout).text()).toMatch(/^\d+\.\d+\.\d+ \(commit /);
    expect(await viaFile.exited).toBe(0);
    // EXT_BINARY naming the launcher itself (through its link) is refused in one line.
    const self = Bun.spawn(["node", LAUNCHER, "--version"], {
      cwd: dir,
      env: env({ EXT_BINARY: "node_modules/.bin/ext" }),
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(await new Response(self.stderr).text()).toBe(
      "EXT_BINARY is set to node_modules/.bin/ext, which is this package's ext launcher, not the ext executable; point it at the binary\n",
    );
    expect(await self.exited).toBe(1);
  }, 30_000);

  test("no platform package and no EXT_BINARY: one line naming the package to install, exit 1", async () => {
    const proc = launch(["--version"], {});
    const stderr = await new Response(proc.stderr).text();
    expect(await proc.exited).toBe(1);
    expect(stderr).toBe(
      `ext-emulator: the package @ext-emulator/${process.platform}-${process.arch} is missing; install it with: npm i -D @ext-emulator/${process.platform}-${process.arch}@0.0.0 (or set EXT_BINARY)\n`,
    );
  });
});
