/**
 * What `ext deploy --wait` says while it waits: at once, what it waits for and the ways to end the wait
 * (nothing approves a version on the emulator unless someone does); on a terminal, the time waited so far,
 * redrawn in place each second.
 */

import { printable } from "../../common/text/printable";
import { shellQuote } from "../../common/text/shell-quote";
import type { Clock } from "../../server";

export interface WaitSubject {
  versionId: string;
  label: string;
  timeoutSeconds: number;
}

/** The id and label came from the server and the user: escaped, and the id quoted for a shell. */
export function waitNotice(w: WaitSubject): string[] {
  const id = printable(w.versionId);
  return [
    `waiting up to ${w.timeoutSeconds} s (--timeout) for version ${id} (${printable(w.label)}) to be approved or rejected; nothing approves it unless one of these does:`,
    "  - approve it in the dashboard, on its Admin page (`ext dashboard` logs a browser in to it)",
    `  - ext versions approve ${printable(shellQuote(w.versionId))}`,
    "  - restart the emulator with --auto-approve (every later version is approved by itself)",
    "Ctrl-C stops waiting; the version stays as it is.",
  ];
}

export interface ElapsedDisplay {
  stop(): void;
}

/** "waited 12 s of 120" redrawn each second on a terminal; nothing otherwise. */
export function showElapsed(
  clock: Clock,
  timeoutSeconds: number,
  tty: boolean,
  write: (s: string) => void = (s) => process.stderr.write(s),
): ElapsedDisplay {
  if (!tty) return { stop() {} };
  const start = clock.nowMs();
  const draw = () => write(`\rwaited ${Math.floor((clock.nowMs() - start) / 1000)} s of ${timeoutSeconds}`);
  draw();
  const timer = setInterval(draw, 1000);
  return {
    stop() {
      clearInterval(timer);
      draw();
      write("\n");
    },
  };
}
