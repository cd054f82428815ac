/**
 * The start-up floor: bench/floor.ts (the smallest Bun.serve answering /healthz) compiled with the emulator's
 * own flags (scripts/lib/compile.ts), so a start-up ratio to it is the cost of everything that is ours.
 */
import { join } from "node:path";
import { BENCH_DIR, BUN, ROOT, WORK_DIR } from "./paths";
import { freePort, type Server, spawnServer, stopServer } from "./proc";

const FLOOR_BINARY = join(WORK_DIR, "floor");

export function buildFloor(): void {
  const args = ["build", "--compile", "--minify-whitespace", "--minify-syntax", "--sourcemap=none", "--bytecode"];
  const proc = Bun.spawnSync([BUN, ...args, "--format=cjs", join(BENCH_DIR, "floor.ts"), "--outfile", FLOOR_BINARY], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
  });
  if (proc.exitCode !== 0) throw new Error(`building the floor program failed: ${proc.stderr.toString()}`);
}

/** One start of the floor program, spawn → first 200 of /healthz (`server.startMs`). */
export async function startFloor(): Promise<{ server: Server; stop: () => Promise<void> }> {
  const port = freePort();
  const server = await spawnServer({ cmd: [FLOOR_BINARY, String(port)], port });
  return { server, stop: () => stopServer(server) };
}
