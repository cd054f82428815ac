/** Runs the emulator as a real subprocess (the compiled `ext serve`, test/helpers/run-cli.ts), for memory and crash tests. */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Subprocess } from "bun";
import type { Fixture } from "../../server/seed/model";
import { cleanEnv } from "./clean-env";
import { readReadyFile } from "./ready-file";
import { extBinary } from "./run-cli";

const ROOT = resolve(import.meta.dir, "../..");

export interface ServerProcess {
  proc: Subprocess;
  url: string;
  baseUrl: string;
  pid: number;
  /** A value in kB from /proc/<pid>/status (VmRSS, VmHWM). */
  memKb(field: "VmRSS" | "VmHWM"): number;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export function writeFixture(dir: string, fixture: Fixture): string {
  const file = join(dir, "fixture.json");
  writeFileSync(file, JSON.stringify(fixture));
  return file;
}

/**
 * `shell` stands for the environment the tests run in; only PATH and HOME pass from it (see cleanEnv), so a
 * developer's EXT_* variables never reach the server.
 */
export async function spawnServer(
  dataDir: string,
  seedFile: string,
  opts: { shell?: Record<string, string | undefined> } = {},
): Promise<ServerProcess> {
  const readyFile = join(mkdtempSync(join(tmpdir(), "ext-ready-")), "ready.json");
  const proc = Bun.spawn(
    [
      extBinary(),
      "serve",
      "--port",
      "0",
      "--data-dir",
      dataDir,
      "--seed",
      seedFile,
      "--ready-file",
      readyFile,
      "--no-rate-limits",
      "--log-level",
      "silent",
    ],
    { cwd: ROOT, env: cleanEnv({}, opts.shell), stdout: "ignore", stderr: "pipe" },
  );
  const ready = await readReadyFile<{ url: string; baseUrl: string }>(readyFile, () => proc.exitCode !== null).catch(
    async () => {
      throw new Error(`server exited ${proc.exitCode}: ${await new Response(proc.stderr as ReadableStream).text()}`);
    },
  );
  return {
    proc,
    url: ready.url,
    baseUrl: ready.baseUrl,
    pid: proc.pid,
    memKb(field) {
      const line = readFileSync(`/proc/${proc.pid}/status`, "utf8")
        .split("\n")
        .find((l) => l.startsWith(`${field}:`));
      return Number(line?.match(/(\d+)/)?.[1] ?? NaN);
    },
    async stop(signal = "SIGTERM") {
      proc.kill(signal);
      await proc.exited;
    },
  };
}
