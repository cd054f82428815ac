/** What CLI commands print: results to stdout, diagnostics to stderr, one line each. */
export const out = (line: string) => process.stdout.write(`${line}\n`);
export const err = (line: string) => process.stderr.write(`${line}\n`);

/**
 * Exit codes (README, "CLI reference"): 0 success, 1 API or runtime error, 2 usage or local validation error;
 * 130 (128 + SIGINT, as a shell reports it) when Ctrl-C stopped an upload.
 */
export const EXIT = { ok: 0, runtime: 1, usage: 2, interrupted: 130 } as const;

export function fail(message: string, code: number = EXIT.runtime): never {
  err(`error: ${message}`);
  process.exit(code);
}
