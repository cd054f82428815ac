/**
 * No test waits a fixed time to order events or to prove that something did not happen: on a busy machine
 * such a test fails (or passes) for reasons of speed. Waiting for a condition (test/helpers/wait-for.ts) or
 * for an observable event is the way. This scans every file under test/ for `Bun.sleep(N)` and
 * `setTimeout(…, N)` with N ≥ 100 ms (a literal, or a constant of the same file), and for Playwright's
 * `waitForTimeout(`. Shorter sleeps are the poll interval of a condition-waiting loop and pass. It also finds
 * polls counted in turns (`for (let i = 0; i < 200 && …; i++) await Bun.sleep(25)`): a fixed sleep in disguise,
 * whose total is a fixed time that a loaded machine can outlast; waitFor's deadline is the one bound.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");
const TEST_DIR = join(ROOT, "test");
const THRESHOLD_MS = 100;

/**
 * The few that are not fixed sleeps, each with why. An entry that no longer matches anything fails the test,
 * so the list cannot outlive its reasons.
 */
const ALLOWED: { file: string; call: string; why: string }[] = [
  {
    file: "test/cli/logs.test.ts",
    call: "Bun.sleep(100)",
    why: "raced against the stream's next read while the test sends a request per turn until one is printed: a turn's length, not a wait",
  },
  {
    file: "test/calls/transport.test.ts",
    call: "Bun.sleep(300)",
    why: "an upload's source producing its chunks slowly, longer in all than the timeout under test: the upload's own time is the subject, nothing waits on it",
  },
  {
    file: "test/calls/transport.test.ts",
    call: "Bun.sleep(2000)",
    why: "a live event stream silent for longer than the timeout under test: the silence is the subject, nothing waits on it",
  },
  {
    file: "test/helpers/raw-http.ts",
    call: "setTimeout(…, 5000)",
    why: "a deadline that fails the request with what arrived so far; a prompt answer never waits for it",
  },
];

/** Loops counted in turns that are not waits, each with why; a stale entry fails like ALLOWED's. */
const ALLOWED_POLLS: { file: string; call: string; why: string }[] = [
  {
    file: "test/cli/logs.test.ts",
    call: "a poll of 200 turns",
    why: "each turn sends a request and reads what the stream printed: the turns are the test's requests, not a wait",
  },
];

export interface Finding {
  file: string;
  line: number;
  call: string;
}

/** The argument list of the call whose `(` is at `open`, split at its top-level commas. */
function argumentsAt(source: string, open: number): string[] {
  const args: string[] = [];
  let depth = 0;
  let start = open + 1;
  for (let i = open; i < source.length; i++) {
    const c = source[i];
    if (c === "(" || c === "[" || c === "{") depth++;
    else if (c === ")" || c === "]" || c === "}") {
      depth--;
      if (depth === 0) {
        args.push(source.slice(start, i).trim());
        return args;
      }
    } else if (c === "," && depth === 1) {
      args.push(source.slice(start, i).trim());
      start = i + 1;
    }
  }
  return args;
}

/** A number literal (`1_000`), or the value of `const NAME = <number>` in the same source; null otherwise. */
function millis(arg: string | undefined, source: string): number | null {
  if (!arg) return null;
  if (/^[\d_]+$/.test(arg)) return Number(arg.replaceAll("_", ""));
  if (/^[A-Za-z_$][\w$]*$/.test(arg)) {
    const constant = new RegExp(`const\\s+${arg}\\s*=\\s*([\\d_]+)\\s*;`).exec(source);
    if (constant) return Number(constant[1]!.replaceAll("_", ""));
  }
  return null;
}

export function fixedSleeps(file: string, source: string): Finding[] {
  const found: Finding[] = [];
  const lineOf = (at: number) => source.slice(0, at).split("\n").length;
  const calls = /\bBun\.sleep\(|\bsetTimeout\(|\bwaitForTimeout\(/g;
  for (const m of source.matchAll(calls)) {
    const open = m.index! + m[0].length - 1;
    const name = m[0].slice(0, -1);
    const args = argumentsAt(source, open);
    if (name === "waitForTimeout") {
      found.push({ file, line: lineOf(m.index!), call: `waitForTimeout(${args.join(", ")})` });
      continue;
    }
    const ms = millis(name === "Bun.sleep" ? args[0] : args[1], source);
    if (ms !== null && ms >= THRESHOLD_MS)
      found.push({
        file,
        line: lineOf(m.index!),
        call: name === "Bun.sleep" ? `Bun.sleep(${ms})` : `setTimeout(…, ${ms})`,
      });
  }
  return found;
}

/**
 * Where a loop's body starting at `at` ends: its matching `}` for a block; else the end of its one statement,
 * the first `;` at its own depth, or the `}` that closes a block within it (`if (x) { … }`).
 */
function statementEnd(source: string, at: number): number {
  let depth = 0;
  for (let i = at; i < source.length; i++) {
    const c = source[i];
    if (c === "(" || c === "[" || c === "{") depth++;
    else if (c === ")" || c === "]" || c === "}") {
      depth--;
      if (depth === 0 && c === "}") return i + 1;
    } else if (c === ";" && depth === 0) return i + 1;
  }
  return source.length;
}

/** `source` with its comments blanked out, lines kept (a URL's `//` is not a comment). */
const withoutComments = (source: string) =>
  source.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, " ")).replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");

/** A counting loop's header, however it is wrapped: `for (let i = 0; i < N…; i++)`, `<=`, `++i`, `i += 1`. */
const COUNTED_LOOP =
  /for\s*\(\s*let\s+(\w+)\s*=\s*[\d_]+\s*;\s*\1\s*<=?\s*([\w_]+)[^;]*;\s*(?:\1\s*\+\+|\+\+\s*\1|\1\s*\+=\s*1)\s*\)\s*/g;
/** What waits in a loop's body: Bun's sleep, a timer, a sleep helper. */
const SLEEPS = /\bBun\.sleep\(|\bsetTimeout\(|\bsleep\(/;

/** Counting loops whose body sleeps: each a poll with a fixed number of turns. */
export function countedPolls(file: string, source: string): Finding[] {
  const found: Finding[] = [];
  const code = withoutComments(source);
  for (const m of code.matchAll(COUNTED_LOOP)) {
    const bodyStart = m.index! + m[0].length;
    if (SLEEPS.test(code.slice(bodyStart, statementEnd(code, bodyStart))))
      found.push({ file, line: code.slice(0, m.index!).split("\n").length, call: `a poll of ${m[2]} turns` });
  }
  return found;
}

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => /\.(ts|tsx|js|mjs|cjs)$/.test(f))
    .map((f) => join(dir, f));
}

/**
 * What `scan` finds under test/ that `allowed` does not list, and the entries of `allowed` it no longer finds.
 * This file's own samples are found on purpose, and left out.
 */
function scanTests(scan: (file: string, source: string) => Finding[], allowed: { file: string; call: string }[]) {
  const found = sourcesUnder(TEST_DIR)
    .filter((path) => path !== import.meta.path)
    .flatMap((path) => scan(relative(ROOT, path), readFileSync(path, "utf8")));
  const same = (f: { file: string; call: string }, a: { file: string; call: string }) =>
    a.file === f.file && a.call === f.call;
  return {
    unallowed: found.filter((f) => !allowed.some((a) => same(f, a))),
    stale: allowed.filter((a) => !found.some((f) => same(f, a))),
  };
}

describe("no fixed sleeps in tests", () => {
  test("the scan finds each kind of fixed sleep, and leaves a condition's poll interval alone", () => {
    const sample = [
      "await Bun.sleep(200);",
      "await new Promise((r) => setTimeout(r, 1_000));",
      "setTimeout(() => {\n  done(f(1, 2));\n}, WAIT);",
      "const WAIT = 250;",
      "await page.waitForTimeout(10);",
      "for (;;) { if (ready()) break; await Bun.sleep(5); }",
      "setTimeout(r, 50);",
    ].join("\n");
    expect(fixedSleeps("sample.ts", sample)).toEqual([
      { file: "sample.ts", line: 1, call: "Bun.sleep(200)" },
      { file: "sample.ts", line: 2, call: "setTimeout(…, 1000)" },
      { file: "sample.ts", line: 3, call: "setTimeout(…, 250)" },
      { file: "sample.ts", line: 7, call: "waitForTimeout(10)" },
    ]);
  });

  test("the scan finds a poll counted in turns, in a block or not, wrapped or not, and leaves other loops and comments alone", () => {
    const sample = [
      "for (let i = 0; i < 200 && !ready(); i++) await Bun.sleep(25);",
      "for (let i = 0; i < 100; i++) {\n  if (done()) break;\n  await Bun.sleep(20);\n}",
      "for (\n  let i = 0;\n  i < 400 && !existsSync(ready) && proc.exitCode === null;\n  i++\n)\n  await Bun.sleep(25);",
      "for (let n = 1; n <= 50; ++n) await new Promise((r) => setTimeout(r, 10));",
      "for (let i = 0; i < COUNT; i++) files.push(make(i));",
      "for (let i = 0; i < 20 && !focused(); i++) await page.keyboard.press('Tab');",
      "for (let i = 0; i < 3; i++) mark(i); // then Bun.sleep(5) elsewhere",
      "for (let i = 0; i < 9; i++) if (seen(i)) { count++; }\nawait Bun.sleep(5);",
    ].join("\n");
    expect(countedPolls("sample.ts", sample)).toEqual([
      { file: "sample.ts", line: 1, call: "a poll of 200 turns" },
      { file: "sample.ts", line: 2, call: "a poll of 100 turns" },
      { file: "sample.ts", line: 6, call: "a poll of 400 turns" },
      { file: "sample.ts", line: 12, call: "a poll of 50 turns" },
    ]);
  });

  test("no test under test/ polls a counted number of turns, apart from the allowed ones", () => {
    expect(scanTests(countedPolls, ALLOWED_POLLS)).toEqual({ unallowed: [], stale: [] });
  });

  test("no test under test/ sleeps a fixed time, apart from the allowed ones", () => {
    expect(scanTests(fixedSleeps, ALLOWED)).toEqual({ unallowed: [], stale: [] });
  });
});
