/**
 * Run as another local user (test/binary/dashboard-two-users.slow.test.ts): what anyone on the machine sees of
 * the owner's processes. It reads every /proc/PID/cmdline over and over and prints each command line once, as
 * a JSON line `{"pid", "argv"}`; for each argument that is a `file:` URL it tries to read the file and prints
 * `{"pid", "read", "error"}`. It prints `watching` after its first full pass, and stops once the file named by
 * its one argument exists.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const stop = process.argv[2]!;
const seen = new Set<string>();
const say = (value: unknown) => process.stdout.write(`${typeof value === "string" ? value : JSON.stringify(value)}\n`);

function tryToRead(pid: string, url: string): void {
  try {
    readFileSync(fileURLToPath(url));
    say({ pid, read: url, error: null });
  } catch (e) {
    say({ pid, read: url, error: (e as NodeJS.ErrnoException).code ?? String(e) });
  }
}

let first = true;
while (!existsSync(stop)) {
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    let argv: string[];
    try {
      argv = readFileSync(`/proc/${pid}/cmdline`, "latin1").split("\0").filter(Boolean);
    } catch {
      continue;
    }
    const key = `${pid}\0${argv.join("\0")}`;
    if (argv.length === 0 || seen.has(key)) continue;
    seen.add(key);
    say({ pid, argv });
    for (const arg of argv) if (arg.startsWith("file:")) tryToRead(pid, arg);
  }
  if (first) say("watching");
  first = false;
  // A pass every few milliseconds: a tight loop on a shared 2-core machine would starve what it watches.
  await Bun.sleep(2);
}
