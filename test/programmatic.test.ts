/** startEmulator(): in-process emulators for test suites, several at once, each with its own state. */
import { afterAll, describe, expect, test } from "bun:test";
import { type Emulator, StartEmulatorError, startEmulator } from "../tools/helper/index";

const started: Emulator[] = [];
afterAll(async () => {
  for (const e of started) await e.stop();
});

async function start(...args: Parameters<typeof startEmulator>): Promise<Emulator> {
  const e = await startEmulator(...args);
  started.push(e);
  return e;
}

const api = (e: Emulator, method: string, path: string, json?: unknown) =>
  fetch(e.baseUrl + path, {
    method,
    headers: { authorization: `Bearer ${e.apiKey}`, ...(json ? { "content-type": "application/json" } : {}) },
    body: json ? JSON.stringify(json) : undefined,
  });

const names = async (e: Emulator) =>
  ((await (await api(e, "GET", "/extensions")).json()) as { extensions: { name: string }[] }).extensions.map(
    (x) => x.name,
  );

describe("startEmulator()", () => {
  test("defaults: memory mode, a free port, the embedded demo fixture with fresh keys", async () => {
    const e = await start();
    expect(e.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/developer\/v1$/);
    expect(e.adminUrl).toBe(`${e.url}/_emulator`);
    // Any local user can reach it on loopback: the demo's public keys (printed in the README) are not its keys.
    expect(e.apiKey).toMatch(/^ext_[0-9A-Za-z]{40}$/);
    for (const key of ["ext_demo_0123456789abcdefghijklmnopqrstuv", "ext_demo_readonly_0123456789abcdefghijk"])
      expect((await fetch(`${e.baseUrl}/extensions`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(
        401,
      );
    const named = await start({ fixture: "demo" });
    expect(named.apiKey).toMatch(/^ext_[0-9A-Za-z]{40}$/);
    expect(named.apiKey).not.toBe(e.apiKey);
    expect(e.runtime.config.memory).toBe(true);
    expect(await names(e)).toEqual([]);
  });

  test("the environment is not read: EXT_* variables change nothing", async () => {
    const names = ["EXT_PORT", "EXT_RATE_LIMITS", "EXT_MEMORY", "EXT_LOG_LEVEL", "EXT_SEED"];
    const saved = names.map((k) => [k, process.env[k]] as const);
    Object.assign(process.env, {
      EXT_PORT: "4999",
      EXT_RATE_LIMITS: "on",
      EXT_MEMORY: "off",
      EXT_LOG_LEVEL: "debug",
      EXT_SEED: "/nonexistent.json",
    });
    try {
      const e = await start();
      expect(e.port).not.toBe(4999);
      expect(e.runtime.config).toMatchObject({ rateLimits: false, memory: true, logLevel: "silent", seed: null });
    } finally {
      for (const [k, v] of saved) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });

  test("two emulators in one file do not see each other's data", async () => {
    const a = await start();
    const b = await start();
    expect(a.port).not.toBe(b.port);
    expect((await api(a, "POST", "/extensions", { name: "Only In A" })).status).toBe(201);
    expect(await names(a)).toEqual(["Only In A"]);
    expect(await names(b)).toEqual([]);
    // Their clocks are separate too.
    await a.advanceClock(3600);
    expect(a.runtime.clock.nowMs() - b.runtime.clock.nowMs()).toBeGreaterThanOrEqual(3_599_000);
  });

  test("reset() wipes the data and re-applies the fixture", async () => {
    const e = await start();
    await api(e, "POST", "/extensions", { name: "Gone After Reset" });
    await e.advanceClock(60);
    await e.reset();
    expect(await names(e)).toEqual([]);
    expect((await api(e, "GET", "/extensions")).status).toBe(200); // the fixture's key works again
    expect(Math.abs(e.runtime.clock.state().offsetMs)).toBeLessThan(1000);
  });

  test("advanceClock() moves the timestamps the API writes", async () => {
    const e = await start();
    const untouched = await start();
    await e.advanceClock(86_400 * 365);
    const res = await api(e, "POST", "/extensions", { name: "From The Future" });
    const created = ((await res.json()) as { extension: { createdAt: string } }).extension.createdAt;
    expect(new Date(created).getTime() - untouched.runtime.clock.nowMs()).toBeGreaterThan(86_400_000 * 364);
  });

  test("bound to 0.0.0.0, reset() and advanceClock() still work: they send the admin token", async () => {
    const e = await start({ host: "0.0.0.0" });
    expect(e.adminUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/_emulator$/);
    // Off loopback the control plane is closed to a request without the token…
    expect((await fetch(`${e.adminUrl}/clock`)).status).toBe(401);
    // …and the helpers get in.
    await api(e, "POST", "/extensions", { name: "Wiped" });
    await e.advanceClock(3600);
    expect(e.runtime.clock.state().offsetMs).toBeGreaterThanOrEqual(3_599_000);
    await e.reset();
    expect(await names(e)).toEqual([]);
    expect(Math.abs(e.runtime.clock.state().offsetMs)).toBeLessThan(1000);
  });

  test("a fixture object; apiKey is its first plaintext key", async () => {
    const e = await start({
      fixture: {
        accounts: [
          { id: "acc_p", name: "P", apiKeys: [{ name: "k", key: "ext_programmatic_key_0123456789", scopes: ["*"] }] },
        ],
      },
    });
    expect(e.apiKey).toBe("ext_programmatic_key_0123456789");
    expect((await api(e, "GET", "/extensions")).status).toBe(200);
  });

  test("a fixture without a plaintext key is refused with a clear error", async () => {
    await expect(startEmulator({ fixture: { accounts: [{ id: "acc_q", name: "Q" }] } })).rejects.toBeInstanceOf(
      StartEmulatorError,
    );
  });

  test("stop() closes the port and is idempotent", async () => {
    const e = await startEmulator();
    await e.stop();
    await e.stop();
    await expect(fetch(`${e.url}/healthz`)).rejects.toThrow();
  });
});
