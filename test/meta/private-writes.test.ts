/**
 * Every file the tools write goes through the one writer (common/files/private-file.ts: a fresh random name, no link
 * followed, 0600, fsync, rename): `writeFileSync(path)` follows a link another user planted at `path`, which
 * is how `ext proxy --report` once overwrote its owner's ~/.bashrc. This fails when a module of the tools — the
 * CLI, the deploy core and the bundles it packs, the parity tools, the call layer, the client and both helpers
 * — writes a file any other way: a write, append or copy call of node:fs, a write stream, `Bun.write`, a
 * file's writer, or an open with a flag that writes.
 */
import { expect, test } from "bun:test";
import { type Call, callsIn, importsIn, sourceFiles, TOOLS } from "./source-scan";

/** Calls that write a file, by the callee's last name. */
const WRITES = new Set([
  "writeFileSync",
  "writeFile",
  "appendFileSync",
  "appendFile",
  "createWriteStream",
  "copyFileSync",
  "copyFile",
  "cpSync",
  "writeSync",
  "linkSync",
  "symlinkSync",
  "truncateSync",
  "ftruncateSync",
  "writer",
]);
/** An open's flags that write: a letter of `w`, `a` or `+`, or a constant that writes or creates. */
const WRITE_FLAGS = /^["'`][rs]*[wa+]|O_WRONLY|O_RDWR|O_CREAT|O_APPEND|O_TRUNC|["'`]\w*[wa+]\w*["'`]/;

/**
 * The few that are not the tools writing a file, each with why. An entry that no longer matches anything
 * fails the test, so the list cannot outlive its reasons.
 */
const ALLOWED: { file: string; callee: string; why: string }[] = [
  {
    file: "common/files/private-file.ts",
    callee: "writeSync",
    why: "the one writer itself: the bytes into its fresh file",
  },
  {
    file: "common/files/private-file.ts",
    callee: "linkSync",
    why: "the one writer itself: the finished file linked to its name, never over an existing one",
  },
  {
    file: "tools/cli/lib/startup-errors.ts",
    callee: "openSync",
    why: "`ext serve`'s probe that its own data directory can be written, before the database opens there: it creates an empty file under a name of its own in a folder it owns (0700) and removes it at once",
  },
];

const last = (callee: string) => callee.slice(callee.lastIndexOf(".") + 1);

export function fileWrites(calls: Call[]): string[] {
  return calls
    .filter(
      (c) =>
        WRITES.has(last(c.callee)) ||
        c.callee === "Bun.write" ||
        (["openSync", "open"].includes(last(c.callee)) && c.args[1] !== undefined && WRITE_FLAGS.test(c.args[1])),
    )
    .map((c) => `${c.file}:${c.line} ${c.callee}(${c.args.join(", ").slice(0, 60)})`);
}

test("the check finds each way of writing a file, and leaves reads and other writes alone", () => {
  const sample = [
    'import { openSync, writeFileSync } from "node:fs";',
    'writeFileSync("/tmp/x", "y");',
    'fs.appendFileSync(p, "y");',
    "const s = createWriteStream(p);",
    "await Bun.write(p, text);",
    "const w = Bun.file(p).writer();",
    'openSync(p, "w");',
    "openSync(p, constants.O_CREAT | constants.O_WRONLY);",
    'openSync(p, "r");',
    "openSync(p, constants.O_RDONLY | NOFOLLOW);",
    "file.write(chunk); process.stdout.write(text); writePrivateFile(p, text);",
    "// writeFileSync(p) in a comment",
    "const x = { async fetch(request) { return 1; } };",
  ].join("\n");
  expect(fileWrites(callsIn("sample.ts", sample))).toEqual([
    'sample.ts:2 writeFileSync("/tmp/x", "y")',
    'sample.ts:3 fs.appendFileSync(p, "y")',
    "sample.ts:4 createWriteStream(p)",
    "sample.ts:5 Bun.write(p, text)",
    "sample.ts:6 Bun.file(p).writer()",
    'sample.ts:7 openSync(p, "w")',
    "sample.ts:8 openSync(p, constants.O_CREAT | constants.O_WRONLY)",
  ]);
});

test("the scan sees the tools' modules (an empty list would prove nothing)", () => {
  const files = sourceFiles(TOOLS);
  for (const f of ["tools/cli/commands/proxy.ts", "tools/conformance/proxy-report.ts", "packaging/npm/src/emulator.ts"])
    expect(files).toContain(f);
});

test("no module of the tools writes a file but through the one writer (common/files/private-file.ts)", () => {
  const files = sourceFiles(TOOLS);
  const found = files.flatMap((file) => fileWrites(callsIn(file)));
  const allowed = (line: string) =>
    ALLOWED.some((a) => line.startsWith(`${a.file}:`) && line.includes(` ${a.callee}(`));
  expect(found.filter((l) => !allowed(l))).toEqual([]);
  expect(ALLOWED.filter((a) => !found.some((l) => l.startsWith(`${a.file}:`) && l.includes(` ${a.callee}(`)))).toEqual(
    [],
  );
  // fs/promises' `open` takes flags too: the tools do not use it.
  const promises = files.flatMap((f) =>
    importsIn(f).filter(
      (i) => /^(node:)?fs\/promises$/.test(i.module) && i.names.some((n) => n === "*" || n === "open" || WRITES.has(n)),
    ),
  );
  expect(promises).toEqual([]);
});
