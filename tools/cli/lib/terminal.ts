/**
 * Secret values (admin tokens, API keys) go to stdout only when it is a terminal: output sent to a
 * file or a pipe (`ext serve > serve.log`, `ext seed FILE > seed.log`) may be read by others (a file is
 * world-readable under umask 022). A line whose value is left out says so with NOT_A_TERMINAL, and where the
 * value can be had. `--json` is an explicit request for machine output: it carries the values.
 */
import { isatty } from "node:tty";

/** Said on a line whose secret value is left out. */
export const NOT_A_TERMINAL = "not printed: output is not a terminal";

/** True when stdout is a terminal: only then is a secret value printed as text. */
export const stdoutIsTerminal = (): boolean => isatty(1);
