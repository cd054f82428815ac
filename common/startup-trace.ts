/**
 * Start-up phases for `ext serve --trace-startup` (or EXT_TRACE_STARTUP=1): where a cold start spends its
 * time, phase by phase, printed on stderr as
 * `[startup] <ms since the process began> <phase> (+<ms of that phase>, cpu +<CPU ms of that phase>)`: the CPU
 * figure (user + system, from process.cpuUsage) tells the process's own work from waiting on a busy machine.
 *
 * This module reads the monotonic timer (`performance.now()`, whose origin is the process start) rather than
 * the emulator's clock (server/base/clock.ts) on purpose: it measures how long this process's own start-up took, a
 * duration on the machine, which the control plane's time travel must never move. It takes no part in what
 * the emulator answers. Marks are cheap and taken on every start; they are printed only when asked.
 */

interface Mark {
  phase: string;
  atMs: number;
  cpuMs: number;
}

const cpuMsNow = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/**
 * Phases recorded before tracing is turned on (the CLI decides once its config is parsed), printed then. A
 * start has a handful; past this many the process is no longer starting (a test suite starts many servers in
 * one process), so nothing more is kept.
 */
const BUFFERED_MAX = 32;
const earlier: Mark[] = [];
let last: Mark | undefined;
let print: ((line: string) => void) | null = null;

function format(mark: Mark, previous: Mark | undefined): string {
  const own = previous ? mark.atMs - previous.atMs : mark.atMs;
  const cpu = previous ? mark.cpuMs - previous.cpuMs : mark.cpuMs;
  return `[startup] ${mark.atMs.toFixed(1).padStart(7)} ms  ${mark.phase} (+${own.toFixed(1)} ms, cpu +${cpu.toFixed(1)} ms)`;
}

/** Records that a phase ended now; printed at once when tracing is on. */
export function markStartup(phase: string): void {
  const mark = { phase, atMs: performance.now(), cpuMs: cpuMsNow() };
  if (print) print(format(mark, last));
  else if (earlier.length < BUFFERED_MAX) earlier.push(mark);
  last = mark;
}

/** Turns tracing on: prints the phases so far, then each later one as it ends. */
export function traceStartupTo(printer: (line: string) => void): void {
  print = printer;
  for (const [i, m] of earlier.entries()) printer(format(m, earlier[i - 1]));
  earlier.length = 0;
}
