#!/usr/bin/env node
// @ts-check
/**
 * `ext` from npm: runs this platform's native binary with the same arguments and standard streams, and
 * ends the way it ended (its exit code, or the signal that killed it). Signals sent to this launcher alone
 * (a `kill PID`, a supervisor's SIGTERM) are passed on, so the binary drains and exits cleanly.
 */
"use strict";
const { spawn } = require("node:child_process");
const { binaryPath } = require("../lib/binary.cjs");

let bin;
try {
  bin = binaryPath();
} catch (e) {
  process.stderr.write(`${/** @type {Error} */ (e).message}\n`);
  process.exit(1);
}

const child = spawn(bin, process.argv.slice(2), { stdio: "inherit", windowsHide: true });
/** @type {NodeJS.Signals[]} */
const FORWARDED =
  process.platform === "win32"
    ? ["SIGINT", "SIGTERM", "SIGBREAK"]
    : ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2"];
// A terminal's Ctrl-C reaches both processes (one process group); the binary handles a repeated signal.
for (const signal of FORWARDED) process.on(signal, () => child.kill(signal));

child.on("error", (e) => {
  process.stderr.write(`ext: could not run ${bin}: ${e.message}\n`);
  process.exit(1);
});
child.on("exit", (code, signal) => {
  if (signal) {
    // Die of the same signal, so a shell or supervisor sees what really happened (128 + n in sh).
    for (const s of FORWARDED) process.removeAllListeners(s);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code ?? 1);
});
