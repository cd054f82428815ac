/**
 * The CLI reference is executable: every ```sh block of docs/cli.md is run, as written, with the compiled binary
 * on PATH as `ext`, each in an empty directory, and again over what it left there; its flag tables are each
 * command's --help, both ways.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { parseServerConfig } from "../../server/base/config";
import { startServer } from "../../server/start/server";
import { SERVE_ACTION_FLAGS, serveArgs } from "../../tools/cli/commands/serve";
import { page, runExample as runExampleWith, shellBlocks } from "./doc-blocks";
import { BUILD_TIMEOUT_MS, type Built, buildBinary, goneSoon, run } from "./helpers";

const README = page("README.md");
const CLI = page("docs/cli.md");
const CONFIGURATION = page("docs/configuration.md");
const blocks = shellBlocks(CLI);

/**
 * The rows of a help table, each wrapped row joined back into one line: a row's continuation lines start
 * at its description column, right of where any row's first cell starts.
 */
function unwrapTable(text: string): string[] {
  const rows: string[] = [];
  let column = Number.POSITIVE_INFINITY;
  for (const line of text.split("\n")) {
    const lead = line.search(/\S/);
    if (lead >= column && rows.length > 0) {
      rows[rows.length - 1] += ` ${line.trim()}`;
      continue;
    }
    rows.push(line);
    const row = /^ *\S+ {2,}(?=\S)/.exec(line);
    column = row ? row[0].length : Number.POSITIVE_INFINITY;
  }
  return rows;
}
let built: Built;

beforeAll(() => {
  built = buildBinary();
}, BUILD_TIMEOUT_MS);
afterAll(() => built?.cleanup());

/** An example run with the compiled binary as `ext` (or the `ext` of `binDir`). */
const runExample = (script: string, cwd: string, binDir = dirname(built.bin)) => runExampleWith(script, cwd, binDir);

describe("docs/cli.md", () => {
  test("documents every command with at least one example", () => {
    for (const cmd of [
      "serve",
      "init",
      "extensions",
      "versions",
      "installs",
      "limits",
      "deploy",
      "secrets",
      "seed",
      "exec",
      "openapi",
    ]) {
      expect(blocks.some((b) => b.heading.startsWith(`\`ext ${cmd}`) && b.script.includes(`ext ${cmd}`))).toBe(true);
    }
  });

  test("the Configuration table has a row for every `ext serve` flag and its environment variable", () => {
    const table = CONFIGURATION;
    for (const [flag, def] of Object.entries(serveArgs)) {
      expect(table).toMatch(new RegExp(`^\\| \`--(no-)?${flag}[ =\\[\`]`, "m"));
      if (SERVE_ACTION_FLAGS.has(flag)) continue;
      const env = /\(env (EXT_[A-Z_]+)\)/.exec(def.description)?.[1];
      expect(env).toBeDefined();
      expect(table).toContain(`\`${env}`);
    }
  });

  // Every command `ext --help` lists: the flags its --help shows are the rows of its docs table, both
  // ways, and a flag whose help names an environment variable has it in its row.
  test("each command's --help flags are the docs' table rows for it", async () => {
    const root = (await run(built.bin, ["--help"], { cwd: built.work })).stdout;
    const listed = root.slice(root.indexOf("\nCOMMANDS\n"), root.indexOf("\nUse ext <command>"));
    const commands = unwrapTable(listed).flatMap((row) => /^\s+([a-z]+) {2,}/.exec(row)?.[1] ?? []);
    expect(commands).toContain("exec");
    const flagNames = (text: string) =>
      [...text.matchAll(/--([a-z][a-z0-9-]*)/g)].map((m) => m[1]!.replace(/^no-/, ""));
    for (const cmd of commands) {
      const help = await run(built.bin, [cmd, "--help"], { cwd: built.work });
      expect(help.code).toBe(0);
      const options = help.stdout.slice(help.stdout.indexOf("\nOPTIONS\n"), help.stdout.indexOf("\nEXAMPLES\n"));
      const helpFlags = new Map(
        unwrapTable(options).flatMap((line) => {
          const m = /^\s+--([a-z][a-z0-9-]*)\S*\s+(.*)$/.exec(line);
          return m ? [[m[1]!, m[2]!] as const] : [];
        }),
      );
      const rows = readmeTableRows(cmd);
      // A command with flags has a table of them (one with none, `ext image`, has no table to keep).
      if (helpFlags.size > 0) expect(rows.length, `docs/cli.md has no flag table for ext ${cmd}`).toBeGreaterThan(0);
      const readmeFlags = new Set(rows.flatMap((row) => flagNames(row.split("|")[1] ?? "")));
      expect([...readmeFlags].sort(), `ext ${cmd}: docs table vs --help`).toEqual([...helpFlags.keys()].sort());
      for (const [flag, description] of helpFlags) {
        const env = /\(env (EXT_[A-Z_]+)\)/.exec(description)?.[1];
        const row = rows.find((r) => flagNames(r.split("|")[1] ?? "").includes(flag))!;
        if (env) expect(row, `ext ${cmd} --${flag}`).toContain(env);
      }
    }
  }, 60_000);

  test("the README's intro lists every command `ext --help` lists, and the reference says how many there are", async () => {
    const root = (await run(built.bin, ["--help"], { cwd: built.work })).stdout;
    const listed = root.slice(root.indexOf("\nCOMMANDS\n"), root.indexOf("\nUse ext <command>"));
    const commands = unwrapTable(listed).flatMap((row) => /^\s+([a-z]+) {2,}/.exec(row)?.[1] ?? []);
    const intro = README.slice(0, README.indexOf("\n## "));
    expect([...new Set([...intro.matchAll(/`ext ([a-z]+)`/g)].map((m) => m[1]))].sort()).toEqual([...commands].sort());
    const words = [
      "twelve",
      "thirteen",
      "fourteen",
      "fifteen",
      "sixteen",
      "seventeen",
      "eighteen",
      "nineteen",
      "twenty",
    ];
    expect(CLI).toContain(`One executable, ${words[commands.length - 12]} commands.`);
  });

  test("ext exec --help shows `-- CMD…` and that it exits with the command's code", async () => {
    const help = await run(built.bin, ["exec", "--help"], { cwd: built.work });
    expect(help.stdout).toMatch(/USAGE ext exec \[OPTIONS\] -- CMD…/);
    expect(help.stdout).toContain("the exit code of CMD");
  });

  test("the ready file is described as what it holds, in the docs and in --help", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ext-ready-doc-"));
    const server = startServer(
      parseServerConfig({ port: 0, memory: true, logLevel: "silent", readyFile: join(dir, "ready.json") }, {}),
    );
    try {
      const fields = Object.keys(JSON.parse(readFileSync(join(dir, "ready.json"), "utf8")));
      expect(CONFIGURATION).toContain(`\`{${fields.join(", ")}}\``);
      expect(serveArgs["ready-file"].description).toContain(`{${fields.join(",")}}`);
    } finally {
      await server.stop(true);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // Twice in the same directory when the first run leaves something there (a scaffold, an export, a data dir): what
  // it left must not break a re-run. An example that leaves nothing would only repeat its first run.
  test.each(blocks.map((b, i) => [`${i + 1}: ${b.heading}`, b.script]))(
    "example %s runs and exits 0, and again over what it left",
    async (_name, script) => {
      const cwd = mkdtempSync(join(built.work, "readme-"));
      for (const run of ["first", "second"]) {
        const { code, stdout, stderr } = await runExample(script, cwd);
        if (code !== 0)
          throw new Error(
            `${run} run: exit ${code}\n--- script\n${script}\n--- stdout\n${stdout}\n--- stderr\n${stderr}`,
          );
        if (leftBehind(cwd).length === 0) break;
      }
    },
    60_000,
  );
});

/** What an example left in its directory, besides the output files its runner writes there. */
const leftBehind = (cwd: string) => readdirSync(cwd).filter((name) => name !== ".stdout" && name !== ".stderr");

/** The flag table of a command: under its "## `ext CMD" heading of docs/cli.md; `ext serve`'s is docs/configuration.md's. */
function readmeTableRows(cmd: string): string[] {
  if (cmd === "serve") return CONFIGURATION.split("\n").filter((line) => line.startsWith("| `--"));
  const start = CLI.indexOf(`\n## \`ext ${cmd}`);
  if (start < 0) return [];
  const end = CLI.slice(start + 1).search(/\n##+ /);
  const section = CLI.slice(start, end < 0 ? undefined : start + 1 + end);
  return section.split("\n").filter((line) => line.startsWith("| `--"));
}

describe("docs/cli.md: the `ext serve` example cleans up after itself", () => {
  const example = () => blocks.find((b) => b.heading === "`ext serve`")!.script;

  test("a command that fails after the server started (sh -e) still stops the server", async () => {
    const cwd = mkdtempSync(join(built.work, "readme-fail-"));
    // A key the demo does not have: `curl -f` fails with 22 on the 401, and `sh -e` stops there.
    // The server's pid is noted on the side: its ready file is gone once it has stopped.
    const script = example()
      .replace(/ext_demo_\w+/, "ext_not_a_demo_key_0123456789abcdefghij")
      .replace("\ntrap ", '\necho $! > server.pid; echo "$dir" > ready-dir\ntrap ');
    expect(script).not.toBe(example());
    expect(script).toContain("server.pid");
    const { code } = await runExample(script, cwd);
    expect(code).toBe(22);
    expect(await goneSoon(Number(readFileSync(join(cwd, "server.pid"), "utf8")))).toBe(true);
    // The private folder of the ready file, the ready file with it, is gone too.
    const readyDir = readFileSync(join(cwd, "ready-dir"), "utf8").trim();
    expect(readyDir).not.toBe("");
    expect(existsSync(readyDir)).toBe(false);
  });

  test("a server that never gets ready is given up on, with a message, and stopped", async () => {
    const cwd = mkdtempSync(join(built.work, "readme-hang-"));
    // An `ext` that starts but never writes the ready file; the 10 s bound shortened to 0.3 s for the test.
    const stubDir = mkdtempSync(join(built.work, "stub-"));
    writeFileSync(join(stubDir, "ext"), "#!/bin/sh\necho $$ > stub.pid\nexec sleep 60\n");
    chmodSync(join(stubDir, "ext"), 0o755);
    const script = example().replace("[ $i -lt 100 ]", "[ $i -lt 3 ]");
    expect(script).not.toBe(example());
    const { code, stdout, stderr } = await runExample(script, cwd, stubDir);
    expect(code).toBe(1);
    expect(stderr).toContain("ext serve is not ready after 10 s");
    expect(stdout).toBe(""); // curl never ran
    expect(await goneSoon(Number(readFileSync(join(cwd, "stub.pid"), "utf8")))).toBe(true);
  });
});
