/**
 * The three servers under test: the compiled emulator, the bare Bun.serve ceiling, and Prism mocking the
 * emulator's own OpenAPI document. Each starts on a free loopback port and is ready at its first 200.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { LOGIN_CODE_FIELD, LOGIN_PATH, SESSION_STORAGE_KEY, sessionInRedirect } from "../../common/dashboard-links";
import { dashboardOriginOf } from "../../tools/cli/lib/login-page";
import type { CeilingResponse } from "../ceiling";
import { BENCH_DIR, BUN, DEMO_FIXTURE, EXT_BINARY, PRISM_CLI, WORK_DIR } from "./paths";
import { freePort, removeDir, type Server, spawnServer, stopServer, tempDir } from "./proc";

/** The demo fixture's key with every scope (fixtures/demo.json). */
export const DEMO_KEY = "ext_demo_0123456789abcdefghijklmnopqrstuv";
export const AUTH_HEADERS = { authorization: `Bearer ${DEMO_KEY}` };
export const LIST_PATH = "/developer/v1/extensions";
/** Every bench server's admin token (EXT_ADMIN_TOKEN), so the bench can call the control plane. */
const ADMIN_TOKEN = "ext-bench-admin-token-0123456789abcdef";
export const ADMIN_HEADERS = { authorization: `Bearer ${ADMIN_TOKEN}` };

export interface Emulator extends Server {
  dataDir: string;
}

export interface EmulatorOptions {
  /** The binary to run: this tree's dist/ext unless told (the reference build of `--against`). */
  binary?: string;
  /** Fixture file for --seed; none means an empty data directory and no account. */
  seed?: string | null;
  rateLimits?: boolean;
  /** Extra environment (EXT_TRACE_STARTUP for the start-up phases). */
  env?: Record<string, string>;
  /** Ready at the first 200 of this path (default /healthz). */
  readyPath?: string;
  /** Sent with each poll of `readyPath`. */
  readyHeaders?: Record<string, string>;
}

/** The compiled binary with a fresh, empty data directory (a real SQLite file, as users run it). */
export async function startEmulator(opts: EmulatorOptions = {}): Promise<Emulator> {
  const dataDir = tempDir("ext-data");
  const port = freePort();
  const cmd = [
    opts.binary ?? EXT_BINARY,
    "serve",
    "--host",
    "127.0.0.1",
    "--port",
    String(port),
    "--data-dir",
    dataDir,
    "--log-level",
    "warn",
  ];
  if (opts.seed) cmd.push("--seed", opts.seed);
  if (opts.rateLimits === false) cmd.push("--no-rate-limits");
  try {
    return {
      ...(await spawnServer({
        cmd,
        port,
        env: { ...process.env, ...opts.env, EXT_ADMIN_TOKEN: ADMIN_TOKEN },
        readyPath: opts.readyPath,
        readyHeaders: opts.readyHeaders,
      })),
      dataDir,
    };
  } catch (e) {
    removeDir(dataDir);
    throw e;
  }
}

/**
 * A dashboard session for `emu`, logged in as `ext dashboard` logs a browser in: a one-time code from the control
 * plane (the admin token in its Authorization header), posted in a form body to this run's dashboard origin
 * (`http://<label>.localhost:port`, the only place the dashboard is served). Returned as the localStorage entry the
 * dashboard keeps it in, with that origin: a browser context given it opens every page there logged in.
 */
export async function dashboardSession(emu: Server): Promise<{ origin: string; name: string; value: string }> {
  const minted = await fetch(`${emu.url}/_emulator/dashboard-login`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  if (minted.status !== 200) throw new Error(`no dashboard login code: ${minted.status} ${await minted.text()}`);
  const { code, loginUrl } = (await minted.json()) as { code: string; loginUrl: string };
  const origin = dashboardOriginOf(loginUrl, emu.url);
  const res = await fetch(`${origin}${LOGIN_PATH}`, {
    method: "POST",
    // As the page `ext dashboard` opens from a file posts it.
    headers: { "content-type": "application/x-www-form-urlencoded", origin: "null" },
    body: new URLSearchParams({ [LOGIN_CODE_FIELD]: code }).toString(),
    redirect: "manual",
  });
  const value = sessionInRedirect(res.headers.get("location"));
  if (res.status !== 303 || !value) throw new Error(`the dashboard login answered ${res.status} ${await res.text()}`);
  return { origin, name: SESSION_STORAGE_KEY, value };
}

export async function stopEmulator(emu: Emulator): Promise<void> {
  await stopServer(emu);
  removeDir(emu.dataDir);
}

/** The key of the bench's extra account `i` (benchFixture's `extraAccounts`). */
export const extraAccountKey = (i: number) => `ext_bench_account_${String(i).padStart(5, "0")}_0123456789abcdefghij`;

/**
 * The demo account (fixtures/demo.json) plus `count` extensions, written to bench/.work. `extraAccounts`
 * adds that many accounts with one key each and room for 1,000 extensions (an override): the create row
 * spreads its writes over them, so it measures creating an extension, not an account's growing list.
 */
export function benchFixture(count: number, extraAccounts = 0): string {
  const demo = JSON.parse(readFileSync(DEMO_FIXTURE, "utf8")) as { accounts: Record<string, unknown>[] };
  demo.accounts[0]!.extensions = Array.from({ length: count }, (_, i) => ({
    id: `ext_bench_${String(i + 1).padStart(2, "0")}`,
    name: `Bench Extension ${i + 1}`,
    short_description: "An extension seeded by the benchmark",
    visibility: i % 3 === 0 ? "public" : "private",
    status: i % 2 === 0 ? "approved" : "draft",
  }));
  for (let i = 0; i < extraAccounts; i++) {
    demo.accounts.push({
      id: `acc_bench_${i}`,
      name: `Bench account ${i}`,
      apiKeys: [{ name: "bench", key: extraAccountKey(i), scopes: ["*"] }],
      overrides: { max_extensions_per_account: 1000 },
    });
  }
  const file = join(WORK_DIR, `fixture-${count}-extensions-${extraAccounts}-accounts.json`);
  writeFileSync(file, JSON.stringify(demo, null, 2));
  return file;
}

/** The bare Bun.serve ceiling answering `responses` ("METHOD /path" → status and body; /healthz added). */
export async function startCeiling(responses: Record<string, CeilingResponse>): Promise<Server> {
  const port = freePort();
  const file = join(WORK_DIR, "ceiling-responses.json");
  writeFileSync(file, JSON.stringify({ ...responses, "GET /healthz": { status: 200, body: '{"status":"ok"}' } }));
  return spawnServer({ cmd: [BUN, join(BENCH_DIR, "ceiling.ts"), String(port), file], port });
}

/** The fair write ceiling (bench/write-ceiling.ts): bare Bun.serve + bun:sqlite doing the same writes. */
export async function startWriteCeiling(): Promise<Server> {
  const port = freePort();
  const dir = tempDir("ext-bench-write-ceiling-");
  return spawnServer({ cmd: [BUN, join(BENCH_DIR, "write-ceiling.ts"), String(port), dir], port });
}

/**
 * Prism 5 in one process (no cluster fork, so the pid we measure is the server), logging errors only:
 * its default per-request info logging would cost it throughput a user could switch off too.
 */
export async function startPrism(openapiFile: string, timeoutMs = 30_000): Promise<Server> {
  const port = freePort();
  const cmd = [
    "node",
    PRISM_CLI,
    "mock",
    openapiFile,
    "--host",
    "127.0.0.1",
    "--port",
    String(port),
    "--no-multiprocess",
    "-v",
    "error",
  ];
  return spawnServer({ cmd, port, timeoutMs });
}

/** Fetches the emulator's own /openapi.json, the document Prism serves. */
export async function fetchOpenApi(emu: Server): Promise<string> {
  const res = await fetch(`${emu.url}/openapi.json`);
  if (res.status !== 200) throw new Error(`GET /openapi.json answered ${res.status}`);
  const file = join(WORK_DIR, "openapi.json");
  writeFileSync(file, await res.text());
  return file;
}
