/**
 * What CLI commands print: results to stdout, diagnostics to stderr, one line each. Through the console (a
 * single string argument is printed as it is, `%` included): the first touch of `process.stdout` or
 * `process.stderr` builds Node's stream machinery, about as costly as the rest of `ext serve`'s start.
 */
export const out = (line: string) => console.log(line);
export const err = (line: string) => console.error(line);

/**
 * Exit codes (README, "CLI reference"): 0 success, 1 API or runtime error, 2 usage or local validation error;
 * 130 (128 + SIGINT, as a shell reports it) when Ctrl-C stopped an upload.
 */
/** rateLimited: the target's rate limits stopped the run; try again later (sysexits' EX_TEMPFAIL). */
export const EXIT = { ok: 0, runtime: 1, usage: 2, rateLimited: 75, interrupted: 130 } as const;

export function fail(message: string, code: number = EXIT.runtime): never {
  err(`error: ${message}`);
  process.exit(code);
}
