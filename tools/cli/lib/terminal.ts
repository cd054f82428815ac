/**
 * Secret values (admin tokens, API keys) go to stdout only when it is a terminal: output sent to a
 * file or a pipe (`ext serve > serve.log`, `ext seed FILE > seed.log`) may be read by others (a file is
 * world-readable under umask 022). A line whose value is left out says so with NOT_A_TERMINAL, and where the
 * value can be had. `--json` is an explicit request for machine output: it carries the values.
 */
import { fstatSync, type Stats, statSync } from "node:fs";
import { devNull } from "node:os";

/** Said on a line whose secret value is left out. */
export const NOT_A_TERMINAL = "not printed: output is not a terminal";

/**
 * True when stdout is a terminal: only then is a secret value printed as text. A terminal is a character
 * device, so one fstat settles a file, a pipe or a socket, and the null device (a supervisor that throws the
 * output away) is told by its device number. Only another character device is put to node:tty, loaded then:
 * importing it loads Node's stream machinery, several milliseconds of the start of `ext serve`, whose banner asks.
 */
export function stdoutIsTerminal(): boolean {
  let out: Stats;
  try {
    out = fstatSync(1);
  } catch {
    return false; // no stdout at all
  }
  if (!out.isCharacterDevice() || isNullDevice(out)) return false;
  return process.getBuiltinModule("node:tty").isatty(1);
}

function isNullDevice(device: Stats): boolean {
  try {
    return statSync(devNull).rdev === device.rdev;
  } catch {
    return false; // no null device by that name (Windows): node:tty decides
  }
}
