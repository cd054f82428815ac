/**
 * Test harness: a real emulator on a real socket (port 0), with a real SQLite file in a temp data directory
 * (or memory mode), seeded with a fixture. Every test file starts its own and stops it in afterAll.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Middleware } from "openapi-fetch";
import { type AdminClient, type ApiClient, createAdminClient, createApiClient, type ErrorDetail } from "../../client";
import { sessionInRedirect } from "../../common/dashboard-links";
import { EmulatorClock } from "../../server/base/clock";
import { parseServerConfig, type ServerConfig } from "../../server/base/config";
import { createLogger } from "../../server/base/logger";
import type { Fixture } from "../../server/seed/model";
import { type RunningEmulator, startServer } from "../../server/start/server";

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
  /** The generated developer-API client, acting with DEMO_KEY: paths, parameters, bodies and answers typed. */
  client: ApiClient;
  /** The generated developer-API client acting with `key` (null: no Authorization header). */
  clientFor(key: string | null): ApiClient;
  /** The generated control-plane client, acting with the admin token. */
  control: AdminClient;
  /**
   * The escape hatch for requests the typed clients cannot send (broken JSON, wrong content types, missing
   * keys, paths outside the document): `rawRequest("POST", "/developer/v1/extensions", { body: "{" })` goes to
   * that path from the server root. No Authorization header unless `opts.key` gives one.
   */
  rawRequest(method: string, path: string, opts?: RequestOptions): Promise<RawResponse>;
}

export interface RequestOptions {
  /** API key sent as `Authorization: Bearer …`; none when absent or null. */
  key?: string | null;
  json?: unknown;
  body?: Bun.BodyInit;
  headers?: Record<string, string>;
}

/** What `rawRequest` answers: the body is whatever the server sent, so a test narrows it before reading it. */
export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed JSON body (undefined when the body is empty or not JSON). */
  body: unknown;
}

/** A typed client's answer (openapi-fetch's `{ data, error, response }`) or a raw one. */
export type AnyResponse = RawResponse | { response: Response; error?: unknown; data?: unknown };

/** The status, headers and parsed body (a typed answer's `error`, else its `data`) of either kind of answer. */
export function answerOf(res: AnyResponse): { status: number; headers: Headers; body: unknown } {
  return "response" in res
    ? { status: res.response.status, headers: res.response.headers, body: res.error ?? res.data }
    : res;
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

/**
 * The secret-value watch of the raw helpers, for the typed clients: every secret PUT is remembered, every
 * answer is searched for every value remembered.
 */
const watchSecretValues: Middleware = {
  async onRequest({ request }) {
    if (request.method !== "PUT" || !SECRET_PATH.test(new URL(request.url).pathname)) return;
    const text = await request.clone().text();
    try {
      rememberSecretValue(request.method, new URL(request.url).pathname, JSON.parse(text));
    } catch {
      // Not JSON: nothing the server could store as a value.
    }
  },
  async onResponse({ request, response }) {
    // A stream (the request log's) never ends: its events are read, and searched, by the test itself.
    if (response.headers.get("content-type")?.startsWith("text/event-stream")) return;
    const text = await response.clone().text();
    assertNoSecretValue(`${request.method} ${new URL(request.url).pathname}`, text, response.headers);
  },
};

function watched<C extends { use(...m: Middleware[]): void }>(client: C): C {
  client.use(watchSecretValues);
  return client;
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
  const rawRequest = async (method: string, path: string, opts: RequestOptions = {}): Promise<RawResponse> => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.key) headers.authorization = `Bearer ${opts.key}`;
    let body = opts.body;
    if (opts.json !== undefined) {
      body = JSON.stringify(opts.json);
      headers["content-type"] ??= "application/json";
    }
    rememberSecretValue(method, path, opts.json);
    const res = await fetch(emulator.url + path, { method, headers, body });
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
  const clients = new Map<string | null, ApiClient>();
  const clientFor = (key: string | null): ApiClient => {
    let client = clients.get(key);
    if (!client) {
      client = watched(createApiClient({ baseUrl: emulator.url, apiKey: key ?? "" }));
      clients.set(key, client);
    }
    return client;
  };
  return Object.assign(emulator, {
    dataDir,
    clock,
    client: clientFor(DEMO_KEY),
    clientFor,
    control: watched(createAdminClient({ url: emulator.url, adminToken: () => emulator.runtime.control.adminToken })),
    rawRequest,
  });
}

/**
 * Logs in as the page `ext dashboard` opens does: posts a fresh one-time code in a form body and returns the
 * session secret its redirect carries in the fragment (`/#session=<secret>`), ready for an `X-Ext-Session` header.
 */
export async function dashboardSession(emulator: RunningEmulator): Promise<string> {
  return sessionFromLogin(
    await postLoginCode(emulator.dashboardUrl, emulator.runtime.control.sessions.mintLogin().code),
  );
}

/** `POST /dashboard/login` with `code` as the login form sends it (`Origin: null`: a page opened from a file). */
export function postLoginCode(url: string, code: string, headers: Record<string, string> = { origin: "null" }) {
  return fetch(`${url}/dashboard/login`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams({ code }).toString(),
    redirect: "manual",
  });
}

/** The session secret in a login response's redirect; throws if it is not one. */
export async function sessionFromLogin(res: Response): Promise<string> {
  const secret = sessionInRedirect(res.headers.get("location"));
  if (res.status !== 303 || !secret) throw new Error(`login failed: ${res.status} ${await res.text()}`);
  return secret;
}

/** Stops the emulator and removes its data directory. */
export async function stopTestEmulator(emulator: TestEmulator | undefined, keepData = false): Promise<void> {
  if (!emulator) return;
  await emulator.stop(true);
  if (!keepData) rmSync(emulator.dataDir, { recursive: true, force: true });
}

export interface EnvelopeError {
  code: string;
  message: string;
  status: number;
  details?: ErrorDetail[];
}

/** Asserts the error envelope shape (of a raw answer or a typed client's) and returns its `error` object. */
export function expectEnvelope(res: AnyResponse, status: number, code: string): EnvelopeError {
  const { status: actual, body } = answerOf(res);
  const error = errorOf(body);
  if (actual !== status || error?.code !== code || error?.status !== status || typeof error?.message !== "string") {
    throw new Error(`expected ${status} ${code}, got ${actual} ${JSON.stringify(body)}`);
  }
  return error as EnvelopeError;
}

/** The `error` object of an envelope, when `body` (a raw answer's, or a typed client's `error`) is one. */
export function errorOf(body: unknown): Partial<EnvelopeError> | undefined {
  if (typeof body !== "object" || body === null || !("error" in body)) return undefined;
  const error = body.error;
  return typeof error === "object" && error !== null ? (error as Partial<EnvelopeError>) : undefined;
}

/** The value at `keys` (object keys, array indexes) in parsed JSON; undefined when any step is missing. */
export function jsonAt(value: unknown, ...keys: (string | number)[]): unknown {
  let at = value;
  for (const key of keys) {
    if (typeof at !== "object" || at === null) return undefined;
    at = (at as Record<string | number, unknown>)[key];
  }
  return at;
}

/** Every operation of the server's own OpenAPI document, with its path and (lower-case) method. */
export async function documentOperations(emu: TestEmulator): Promise<{ path: string; method: string; op: unknown }[]> {
  const paths = jsonAt((await emu.rawRequest("GET", "/openapi.json")).body, "paths");
  if (typeof paths !== "object" || paths === null) throw new Error("the document has no paths");
  return Object.entries(paths).flatMap(([path, item]) =>
    typeof item === "object" && item !== null ? Object.entries(item).map(([method, op]) => ({ path, method, op })) : [],
  );
}
