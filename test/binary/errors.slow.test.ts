/**
 * What a newcomer sees when something is off, from the compiled binary: usage errors (the error first,
 * one line pointing at --help, "did you mean"), `ext help`, fixture errors a person can act on, start-up
 * errors of the machine told without errno text, the ready file's lifecycle and `--log-level silent`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeReadOnly } from "../helpers/read-only-dir";
import { readReadyFile } from "../helpers/ready-file";
import { BUILD_TIMEOUT_MS, type Built, buildBinary, cleanEnv, run } from "./helpers";

let built: Built;
let bin: string;
let work: string;

beforeAll(() => {
  built = buildBinary();
  bin = built.bin;
  work = built.work;
}, BUILD_TIMEOUT_MS);
afterAll(() => built?.cleanup());

const ERRNO = /\bE[A-Z]{3,}\b|SQLITE_|no such file or directory, |attempt to write/;

describe("usage errors: the error, then one line pointing at --help", () => {
  test.each([
    [["deplyo"], 'unknown command "deplyo"; did you mean `deploy`?', "Run `ext --help` to see the commands."],
    [["sed", "demo"], "did you mean `seed`?", "Run `ext --help`"],
    [["serve", "--prot", "0"], "did you mean `--port`?", "Run `ext serve --help` to see its flags and examples."],
    [["deploy", "--dryrun"], "did you mean `--dry-run`?", "Run `ext deploy --help`"],
    [["exec"], "give the command to run after --", "Run `ext exec --help`"],
    [["--verison"], "did you mean `--version`?", "Run `ext --help`"],
  ])("ext %p", async (args, error, hint) => {
    const r = await run(bin, args as string[], { cwd: work });
    expect(r.code).toBe(2);
    const lines = r.stderr.trimEnd().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toStartWith("error: ");
    expect(lines[0]).toContain(error as string);
    expect(lines[1]).toContain(hint as string);
    expect(r.stdout).toBe("");
  });

  test("nothing close enough: no guess", async () => {
    const r = await run(bin, ["frobnicate"], { cwd: work });
    expect(r.code).toBe(2);
    expect(r.stderr).not.toContain("did you mean");
  });

  test("`ext help` and `ext help CMD` are --help", async () => {
    const root = await run(bin, ["help"], { cwd: work });
    expect(root.code).toBe(0);
    expect(root.stdout).toBe((await run(bin, ["--help"], { cwd: work })).stdout);
    const deploy = await run(bin, ["help", "deploy"], { cwd: work });
    expect(deploy.code).toBe(0);
    expect(deploy.stdout).toBe((await run(bin, ["deploy", "--help"], { cwd: work })).stdout);
    const typo = await run(bin, ["help", "deplyo"], { cwd: work });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("did you mean `deploy`?");
  });
});

describe("fixture errors", () => {
  const dir = () => mkdtempSync(join(work, "fixture-"));

  test("a JSON syntax error gives file:line:column, the line and a caret under the offending character", async () => {
    const d = dir();
    writeFileSync(join(d, "team.json"), '{\n  "accounts": [\n    { "id": "acc_a", name: "A" }\n  ]\n}\n');
    const r = await run(bin, ["seed", "team.json", "--data-dir", "data"], { cwd: d });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      [
        'error: team.json:3:22: not valid JSON: property names take double quotes, e.g. "name"',
        '    3 |     { "id": "acc_a", name: "A" }',
        `      | ${" ".repeat(21)}^`,
        "",
      ].join("\n"),
    );
    expect(existsSync(join(d, "data"))).toBe(false);
  });

  test("a trailing comma and a missing one are named as such", async () => {
    const d = dir();
    writeFileSync(join(d, "a.json"), '{"accounts": [{"id": "acc_a", "name": "A",}]}');
    writeFileSync(join(d, "b.json"), '{"accounts": [{"id": "acc_a" "name": "A"}]}');
    const a = await run(bin, ["seed", "a.json"], { cwd: d });
    expect(a.stderr).toContain("a.json:1:43: not valid JSON: a comma before } (JSON allows no trailing comma)");
    const b = await run(bin, ["seed", "b.json"], { cwd: d });
    expect(b.stderr).toContain("b.json:1:30: not valid JSON: a comma is missing before this property");
  });

  test("validation problems in words, with what to write for a missing field; paths as in the control plane", async () => {
    const d = dir();
    writeFileSync(
      join(d, "f.json"),
      JSON.stringify({
        accounts: [
          { id: "acc_a", name: "A", apiKeys: [{ name: "ci" }], overrides: { max_api_keys: -1 }, colour: "red" },
        ],
      }),
    );
    const r = await run(bin, ["serve", "--memory", "--port", "0", "--seed", "f.json"], { cwd: d });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'accounts[0].apiKeys[0].scopes: `scopes` is required: list the scopes of this key, e.g. ["*"]',
    );
    expect(r.stderr).toContain("accounts[0].overrides.max_api_keys: must be a whole number, 0 or more");
    expect(r.stderr).toContain("accounts[0].colour: unknown field `colour`; the fields here are id, name, apiKeys");
    expect(r.stderr).not.toMatch(/Expected|union/);
  });

  test("a missing file says so in words", async () => {
    const r = await run(bin, ["seed", "nope.json"], { cwd: dir() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("cannot read fixture nope.json: no such file");
    expect(r.stderr).not.toMatch(ERRNO);
  });
});

describe("start-up errors of the machine: one line naming the setting, its value and what to do", () => {
  const serve = (args: string[], cwd = work, env?: Record<string, string>) =>
    run(bin, ["serve", "--port", "0", ...args], { cwd, env });
  const oneLine = (stderr: string) => {
    expect(stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(stderr).not.toMatch(ERRNO);
  };

  test("--host that is not an address of this machine: exit 2", async () => {
    for (const host of ["999.1.1.1", "host.invalid"]) {
      const r = await serve(["--memory", "--host", host]);
      expect(r.code).toBe(2);
      oneLine(r.stderr);
      expect(r.stderr).toStartWith(`error: --host ${host}: cannot listen there`);
      expect(r.stderr).toContain("127.0.0.1");
    }
  });

  test("a data dir that is a file (flag or EXT_DATA_DIR): exit 2", async () => {
    const d = mkdtempSync(join(work, "file-"));
    writeFileSync(join(d, "data"), "not a directory");
    const flag = await serve(["--data-dir", "data"], d);
    expect(flag.code).toBe(2);
    oneLine(flag.stderr);
    expect(flag.stderr).toBe(
      "error: --data-dir data: this is a file, not a directory; give a directory (it is created if missing), or run with --memory\n",
    );
    const env = await serve([], d, { EXT_DATA_DIR: "data/sub" });
    expect(env.code).toBe(2);
    oneLine(env.stderr);
    expect(env.stderr).toStartWith("error: EXT_DATA_DIR=data/sub: part of this path is a file");
    const seed = await run(bin, ["seed", "demo", "--data-dir", "data"], { cwd: d });
    expect(seed.code).toBe(2);
    oneLine(seed.stderr);
  });

  test("a read-only data dir (an existing database, and an empty directory): exit 1, nothing listens", async () => {
    const d = mkdtempSync(join(work, "ro-"));
    const filled = join(d, "filled");
    expect((await run(bin, ["seed", "demo", "--data-dir", filled], { cwd: d })).code).toBe(0);
    const empty = join(d, "empty");
    mkdirSync(empty);
    const locks = [makeReadOnly(filled), makeReadOnly(empty)];
    try {
      writeFileSync(join(d, "more.json"), JSON.stringify({ accounts: [{ id: "acc_more", name: "More" }] }));
      for (const [dataDir, extra] of [
        [filled, ["--seed", "more.json"]],
        [filled, []],
        [empty, []],
      ] as const) {
        const r = await serve(["--data-dir", dataDir, "--ready-file", join(d, "ready.json"), ...extra], d);
        expect(r.code).toBe(1);
        oneLine(r.stderr);
        expect(r.stderr).toStartWith(`error: --data-dir ${dataDir}: cannot write there (`);
        expect(r.stderr).toContain("give a writable directory with --data-dir, or run with --memory");
        expect(r.stdout).toBe("");
        expect(existsSync(join(d, "ready.json"))).toBe(false);
      }
      const seed = await run(bin, ["seed", "more.json", "--data-dir", filled], { cwd: d });
      expect(seed.code).toBe(1);
      oneLine(seed.stderr);
    } finally {
      for (const l of locks) l.undo();
    }
  });
});

describe("--ready-file", () => {
  test("a stale ready file is removed at start, even when the start then fails", async () => {
    const d = mkdtempSync(join(work, "stale-"));
    const ready = join(d, "ready.json");
    writeFileSync(ready, JSON.stringify({ url: "http://127.0.0.1:1", pid: 1 }));
    writeFileSync(join(d, "bad.json"), "{");
    const r = await run(bin, ["serve", "--memory", "--port", "0", "--ready-file", ready, "--seed", "bad.json"], {
      cwd: d,
    });
    expect(r.code).toBe(2);
    expect(existsSync(ready)).toBe(false);
  });

  test("it is written once listening and removed on exit (SIGTERM)", async () => {
    const d = mkdtempSync(join(work, "ready-"));
    const ready = join(d, "ready.json");
    writeFileSync(ready, JSON.stringify({ url: "http://127.0.0.1:1", pid: 1 }));
    const proc = Bun.spawn([bin, "serve", "--memory", "--port", "0", "--ready-file", ready], {
      cwd: d,
      env: cleanEnv(),
      stdout: "pipe",
      stderr: "pipe",
    });
    // The banner is printed after the ready file is written.
    await proc.stdout.getReader().read();
    expect(JSON.parse(readFileSync(ready, "utf8")).pid).toBe(proc.pid);
    proc.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
    expect(existsSync(ready)).toBe(false);
  });
});

describe("--log-level silent", () => {
  test("prints nothing: no banner, no shutdown line; the ready file still says where it listens", async () => {
    const d = mkdtempSync(join(work, "silent-"));
    const ready = join(d, "ready.json");
    const proc = Bun.spawn(
      [bin, "serve", "--memory", "--port", "0", "--seed", "demo", "--log-level", "silent", "--ready-file", ready],
      { cwd: d, env: cleanEnv(), stdout: "pipe", stderr: "pipe" },
    );
    const { baseUrl } = await readReadyFile<{ baseUrl: string }>(ready, () => proc.exitCode !== null);
    expect(
      (
        await fetch(`${baseUrl}/extensions`, {
          headers: { authorization: "Bearer ext_demo_0123456789abcdefghijklmnopqrstuv" },
        })
      ).status,
    ).toBe(200);
    proc.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
    expect(await new Response(proc.stdout).text()).toBe("");
    expect(await new Response(proc.stderr).text()).toBe("");
  });
});
