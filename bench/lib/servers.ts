/**
 * The three servers under test: the compiled emulator, the bare Bun.serve ceiling, and Prism mocking the
 * emulator's own OpenAPI document. Each starts on a free loopback port and is ready at its first 200.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BENCH_DIR, BUN, DEMO_FIXTURE, EXT_BINARY, PRISM_CLI, WORK_DIR } from "./paths";
import { freePort, removeDir, spawnServer, stopServer, tempDir, type Server } from "./proc";

/** The demo fixture's key with every scope (fixtures/demo.json). */
export const DEMO_KEY = "ext_demo_0123456789abcdefghijklmnopqrstuv";
export const AUTH_HEADERS = { authorization: `Bearer ${DEMO_KEY}` };
export const LIST_PATH = "/developer/v1/extensions";

export interface Emulator extends Server {
  dataDir: string;
}

export interface EmulatorOptions {
  /** Fixture file for --seed; none means an empty data directory and no account. */
  seed?: string | null;
  rateLimits?: boolean;
}

/** The compiled binary with a fresh, empty data directory (a real SQLite file, as users run it). */
export async function startEmulator(opts: EmulatorOptions = {}): Promise<Emulator> {
  const dataDir = tempDir("ext-data");
  const port = freePort();
  const cmd = [EXT_BINARY, "serve", "--host", "127.0.0.1", "--port", String(port), "--data-dir", dataDir, "--log-level", "warn"];
  if (opts.seed) cmd.push("--seed", opts.seed);
  if (opts.rateLimits === false) cmd.push("--no-rate-limits");
  try {
    return { ...(await spawnServer({ cmd, port })), dataDir };
  } catch (e) {
    removeDir(dataDir);
    throw e;
  }
}

export async function stopEmulator(emu: Emulator): Promise<void> {
  await stopServer(emu);
  removeDir(emu.dataDir);
}

/** The demo account (fixtures/demo.json) plus `count` extensions, written to bench/.work. */
export function benchFixture(count: number): string {
  const demo = JSON.parse(readFileSync(DEMO_FIXTURE, "utf8")) as { accounts: { extensions?: unknown[] }[] };
  demo.accounts[0]!.extensions = Array.from({ length: count }, (_, i) => ({
    id: `ext_bench_${String(i + 1).padStart(2, "0")}`,
    name: `Bench Extension ${i + 1}`,
    short_description: "An extension seeded by the benchmark",
    visibility: i % 3 === 0 ? "public" : "private",
    status: i % 2 === 0 ? "approved" : "draft",
  }));
  const file = join(WORK_DIR, `fixture-${count}-extensions.json`);
  writeFileSync(file, JSON.stringify(demo, null, 2));
  return file;
}

export async function startCeiling(bodyFile: string): Promise<Server> {
  const port = freePort();
  return spawnServer({ cmd: [BUN, join(BENCH_DIR, "ceiling.ts"), String(port), bodyFile], port });
}

/**
 * Prism 5 in one process (no cluster fork, so the pid we measure is the server), logging errors only:
 * its default per-request info logging would cost it throughput a user could switch off too.
 */
export async function startPrism(openapiFile: string, timeoutMs = 30_000): Promise<Server> {
  const port = freePort();
  const cmd = ["node", PRISM_CLI, "mock", openapiFile, "--host", "127.0.0.1", "--port", String(port), "--no-multiprocess", "-v", "error"];
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
