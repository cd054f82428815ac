/** The CLI as a subprocess, with an environment of PATH and HOME only. */
import { resolve } from "node:path";
import { sharedBinary } from "../binary/binary-cache";
import { BUILD_TIMEOUT_MS } from "../binary/helpers";
import { cleanEnv } from "./clean-env";

const ROOT = resolve(import.meta.dir, "../..");

let binary: string | undefined;
/**
 * `ext` as the tests run it: the compiled binary, built once per source state (about 1.3 s) and shared by every
 * test file and worker of the run (test/binary/binary-cache.ts). A start from source transpiles and loads every
 * module: `ext serve` costs about 0.25 CPU-s against 0.06 for the binary, and the suite starts the CLI over a
 * hundred times (bench/results/suite-time.md). What runs from source (`npm start`, `npm run ext`) keeps its own
 * tests: test/cli/version.test.ts, test/meta/start-path.test.ts, test/binary/image-context.slow.test.ts.
 */
export const extBinary = (): string => {
  binary ??= sharedBinary(BUILD_TIMEOUT_MS);
  return binary;
};

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `ext ARGS` in `cwd` (the repository by default) with `env` added, `stdin` as its input, to its end. */
export async function runCli(
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; stdin?: string } = {},
): Promise<CliResult> {
  const proc = Bun.spawn([extBinary(), ...args], {
    cwd: options.cwd ?? ROOT,
    env: cleanEnv(options.env),
    stdin: options.stdin === undefined ? "ignore" : new Blob([options.stdin]),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [code, stdout, stderr] = await Promise.all([
    proc.exited,
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
  ]);
  return { code, stdout, stderr };
}
