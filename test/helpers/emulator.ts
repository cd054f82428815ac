/**
 * Test harness: a real emulator on a real socket (port 0), with a real SQLite file in a temp data directory
 * (or memory mode), seeded with a fixture. Every test file starts its own and stops it in afterAll.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EmulatorClock } from "../../src/clock";
import { parseServerConfig, type ServerConfig } from "../../src/config";
import type { Fixture } from "../../src/fixtures/model";
import { createLogger } from "../../src/logger";
import { type RunningEmulator, startServer } from "../../src/server";

export const DEMO_KEY = "ext_test_key_all_scopes_0123456789abcdef";
export const READ_KEY = "ext_test_key_read_only_0123456789abcdefg";
export const OTHER_KEY = "ext_test_key_other_account_0123456789ab";

/** Two accounts: acc_test (full key + read-only key) and acc_other (full key). */
export function baseFixture(): Fixture {
  return {
    accounts: [
      {
        id: "acc_test",
        name: "Test Developer",
        apiKeys: [
          { name: "full", key: DEMO_KEY, scopes: ["*"] },
          { name: "read", key: READ_KEY, scopes: ["extensions:read", "secrets:read"] },
        ],
      },
      { id: "acc_other", name: "Other Developer", apiKeys: [{ name: "full", key: OTHER_KEY, scopes: ["*"] }] },
    ],
  };
}

export interface TestEmulator extends RunningEmulator {
  dataDir: string;
  clock: EmulatorClock;
  /** fetch against the emulator: `api("GET", "/extensions")` goes to /developer/v1/extensions. */
  api(method: string, path: string, opts?: RequestOptions): Promise<TestResponse>;
  /** fetch against the server root: `raw("GET", "/healthz")`. */
  raw(method: string, path: string, opts?: RequestOptions): Promise<TestResponse>;
  /**
   * fetch against the control plane: `admin("POST", "/clock", { advanceSeconds: 60 })` goes to
   * /_emulator/clock with that JSON body, as the owner: with the admin token unless `opts.key` says otherwise
   * (null: no Authorization header).
   */
  admin(method: string, path: string, json?: unknown, opts?: Omit<RequestOptions, "json">): Promise<TestResponse>;
}

export interface RequestOptions {
  /** API key; defaults to DEMO_KEY; null sends no Authorization header. */
  key?: string | null;
  json?: unknown;
  body?: Bun.BodyInit;
  headers?: Record<string, string>;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed JSON body (undefined when the body is empty or not JSON). */
  body: any;
}

export interface StartOptions {
  fixture?: Fixture | null;
  config?: Partial<ServerConfig>;
  /** Reuse a data directory (restart tests); a fresh temp dir otherwise. */
  dataDir?: string;
  /** The graceful stop's drain limit (the server's default otherwise). */
  drainMs?: number;
  /** The idle-connection limit in seconds (the server's default otherwise). */
  idleTimeoutSeconds?: number;
}

/**
 * Every secret value any test of the suite PUTs through this harness (bun runs the test files in one
 * process, so this set spans the whole suite). Every response of every test is searched for all of them:
 * a value that ever comes back — in a body or a header, on any endpoint, the control plane included —
 * fails the test that received it. Values under 8 characters are not tracked (too likely to occur by chance).
 */
const sentSecretValues = new Set<string>();
const SECRET_PATH = /\/extensions\/[^/]+\/secrets\/[^/]+$/;

export function rememberSecretValue(method: string, path: string, json: unknown): void {
  const value = (json as { value?: unknown } | undefined)?.value;
  if (method === "PUT" && SECRET_PATH.test(path) && typeof value === "string" && value.length >= 8)
    sentSecretValues.add(value);
}

export function assertNoSecretValue(request: string, text: string, headers: Headers): void {
  if (sentSecretValues.size === 0) return;
  const everything = `${[...headers].map(([k, v]) => `${k}: ${v}`).join("\n")}\n${text}`;
  for (const value of sentSecretValues) {
    if (everything.includes(value))
      throw new Error(`a secret value sent earlier in the suite came back in the response to ${request}`);
  }
}

export async function startTestEmulator(options: StartOptions = {}): Promise<TestEmulator> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), "ext-test-"));
  const config: ServerConfig = {
    ...parseServerConfig({ port: 0, dataDir, logLevel: "silent", rateLimits: false }, {}),
    ...options.config,
  };
  const clock = new EmulatorClock();
  const fixture = options.fixture === undefined ? baseFixture() : options.fixture;
  const emulator = startServer(config, {
    clock,
    logger: createLogger("silent"),
    ...(fixture ? { seedFixture: fixture } : {}),
    ...(options.drainMs !== undefined ? { drainMs: options.drainMs } : {}),
    ...(options.idleTimeoutSeconds !== undefined ? { idleTimeoutSeconds: options.idleTimeoutSeconds } : {}),
  });
  const send = async (base: string, method: string, path: string, opts: RequestOptions = {}): Promise<TestResponse> => {
    const headers: Record<string, string> = { ...opts.headers };
    const key = opts.key === undefined ? DEMO_KEY : opts.key;
    if (key !== null) headers.authorization = `Bearer ${key}`;
    let body = opts.body;
    if (opts.json !== undefined) {
      body = JSON.stringify(opts.json);
      headers["content-type"] ??= "application/json";
    }
    rememberSecretValue(method, path, opts.json);
    const res = await fetch(base + path, { method, headers, body });
    const text = await res.text();
    assertNoSecretValue(`${method} ${path}`, text, res.headers);
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, text, body: parsed };
  };
  return Object.assign(emulator, {
    dataDir,
    clock,
    api: (m: string, p: string, o?: RequestOptions) => send(emulator.baseUrl, m, p, o),
    raw: (m: string, p: string, o?: RequestOptions) => send(emulator.url, m, p, o),
    admin: (m: string, p: string, json?: unknown, o?: Omit<RequestOptions, "json">) =>
      send(emulator.adminUrl, m, p, {
        key: emulator.runtime.control.adminToken,
        ...o,
        ...(json !== undefined ? { json } : {}),
      }),
  });
}

/**
 * Logs in as the dashboard does: opens the one-time login link and returns the session cookie it set
 * (`name=value`, ready for a Cookie header).
 */
export async function dashboardSessionCookie(emulator: RunningEmulator): Promise<string> {
  const code = emulator.runtime.control.sessions.loginCode();
  const res = await fetch(`${emulator.url}/dashboard/login?token=${code}`, { redirect: "manual" });
  const set = res.headers.get("set-cookie");
  if (res.status !== 303 || !set) throw new Error(`login failed: ${res.status} ${await res.text()}`);
  return set.split(";", 1)[0]!;
}

/** Stops the emulator and removes its data directory. */
export async function stopTestEmulator(emulator: TestEmulator | undefined, keepData = false): Promise<void> {
  if (!emulator) return;
  await emulator.stop(true);
  if (!keepData) rmSync(emulator.dataDir, { recursive: true, force: true });
}

/** Asserts the error envelope shape and returns its `error` object. */
export function expectEnvelope(res: TestResponse, status: number, code: string) {
  if (
    res.status !== status ||
    res.body?.error?.code !== code ||
    res.body?.error?.status !== status ||
    typeof res.body?.error?.message !== "string"
  ) {
    throw new Error(`expected ${status} ${code}, got ${res.status} ${res.text}`);
  }
  return res.body.error as { code: string; message: string; status: number; details?: any[] };
}
