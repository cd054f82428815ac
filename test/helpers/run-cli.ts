/** The CLI from source as a subprocess (`bun tools/cli/main.ts …`), with an environment of PATH and HOME only. */
import { join, resolve } from "node:path";
import { cleanEnv } from "./clean-env";

const ROOT = resolve(import.meta.dir, "../..");
export const BUN = join(ROOT, "node_modules/.bin/bun");
export const CLI_MAIN = join(ROOT, "tools/cli/main.ts");

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
  const proc = Bun.spawn([BUN, CLI_MAIN, ...args], {
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
