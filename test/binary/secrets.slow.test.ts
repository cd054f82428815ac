/**
 * `ext secrets` as a user runs it: the compiled binary against the compiled binary's `serve`, on a real data
 * dir, at debug log level with its output captured, so a value that leaks anywhere (arguments, output, server
 * log, request log, files on disk) is caught.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readReadyFile } from "../helpers/ready-file";
import { waitFor } from "../helpers/wait-for";
import { BUILD_TIMEOUT_MS, type Built, buildBinary, cleanEnv, run } from "./helpers";

const KEY = "ext_secrets_test_key_0123456789abcdef";
const READ_ONLY_KEY = "ext_secrets_read_key_0123456789abcdef";
const FIXTURE = {
  accounts: [
    {
      id: "acc_dev",
      name: "Dev",
      apiKeys: [
        { name: "ci", key: KEY, scopes: ["*"] },
        { name: "reader", key: READ_ONLY_KEY, scopes: ["secrets:read"] },
      ],
      extensions: [{ id: "ext_plain", name: "Plain Board" }],
    },
  ],
};
/** Distinctive enough that finding it anywhere can only be a leak. */
const VALUE = "tok_9f8e7d6c5b4a_do-not-leak_Z1Y2";

let built: Built;
let work: string;
let dataDir: string;
let serverLog: string;
let baseUrl: string;
let adminUrl: string;
let adminToken: string;
let server: ReturnType<typeof Bun.spawn>;

beforeAll(async () => {
  built = buildBinary();
  work = built.work;
  dataDir = join(work, "data");
  serverLog = join(work, "server.log");
  writeFileSync(join(work, "fixture.json"), JSON.stringify(FIXTURE));
  const ready = join(mkdtempSync(join(tmpdir(), "ext-ready-")), "ready.json");
  server = Bun.spawn(
    [
      built.bin,
      "serve",
      "--port",
      "0",
      "--ready-file",
      ready,
      "--log-level",
      "debug",
      "--data-dir",
      dataDir,
      "--seed",
      "fixture.json",
      "--no-rate-limits",
    ],
    {
      cwd: work,
      env: cleanEnv(),
      stdout: Bun.file(serverLog),
      stderr: Bun.file(join(work, "server.err")),
    },
  );
  ({ baseUrl, adminUrl, adminToken } = await readReadyFile<{ baseUrl: string; adminUrl: string; adminToken: string }>(
    ready,
    () => server.exitCode !== null,
  ));
}, BUILD_TIMEOUT_MS);
afterAll(async () => {
  server?.kill("SIGTERM");
  await server?.exited;
  built?.cleanup();
});

const secrets = (args: string[], opts: { key?: string } = {}) =>
  run(built.bin, ["secrets", ...args, "--extension", "ext_plain", "--api-key", opts.key ?? KEY, "--target", baseUrl], {
    cwd: work,
  });

/** `ext secrets set NAME` with its stdin kept open until the test writes to it. */
function setWithStdin(name: string) {
  const proc = Bun.spawn(
    [built.bin, "secrets", "set", name, "--extension", "ext_plain", "--api-key", KEY, "--target", baseUrl],
    { cwd: work, env: cleanEnv(), stdin: "pipe", stdout: "pipe", stderr: "pipe" },
  );
  return {
    proc,
    async finish(input: string) {
      proc.stdin.write(input);
      await proc.stdin.end();
      const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
      return { code: await proc.exited, stdout, stderr };
    },
  };
}

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((p) => join(dir, p))
    .filter((p) => statSync(p).isFile());
}

describe("ext secrets", () => {
  test('set reads the value from stdin (as `<<< "$value"` gives it); it is listed by name, never in arguments, output, logs or files', async () => {
    const setting = setWithStdin("API_TOKEN");
    // While it waits on stdin, its arguments are all the process shows: the value is not among them.
    const cmdline = await waitFor(() => {
      const now = readFileSync(`/proc/${setting.proc.pid}/cmdline`, "utf8");
      return now.includes("API_TOKEN") && now;
    }, "the command's arguments");
    expect(cmdline.split("\0")).toEqual([
      built.bin,
      "secrets",
      "set",
      "API_TOKEN",
      "--extension",
      "ext_plain",
      "--api-key",
      KEY,
      "--target",
      baseUrl,
      "",
    ]);
    const r = await setting.finish(`${VALUE}\n`);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("stored secret API_TOKEN for ext_plain (the value is never shown)\n");

    const list = await secrets(["list"]);
    expect(list.code).toBe(0);
    expect(list.stdout).toBe("API_TOKEN\n");
    expect(JSON.parse((await secrets(["list", "--json"])).stdout)).toEqual({
      ok: true,
      extensionId: "ext_plain",
      keys: ["API_TOKEN"],
    });

    const requests = await (
      await fetch(`${adminUrl}/requests?limit=500`, { headers: { authorization: `Bearer ${adminToken}` } })
    ).text();
    expect(requests).toContain("/secrets/API_TOKEN");
    expect(requests).not.toContain(VALUE);
    // The files searched below are the server's real output (its banner is there).
    expect(readFileSync(serverLog, "utf8")).toContain("ext emulator listening on");
    for (const file of [serverLog, join(work, "server.err"), ...filesUnder(dataDir)])
      expect(readFileSync(file).includes(VALUE)).toBe(false);
  });

  test("a hidden prompt on a terminal: what is typed is not echoed", async () => {
    // `script` gives the command a pseudo-terminal and types its own stdin into it.
    const inner = `${built.bin} secrets set PROMPTED --extension ext_plain --api-key ${KEY} --target ${baseUrl}`;
    const proc = Bun.spawn(["script", "-qec", inner, "/dev/null"], {
      cwd: work,
      env: cleanEnv(),
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    const output: string[] = [];
    const reader = (async () => {
      for await (const chunk of proc.stdout as AsyncIterable<Uint8Array>)
        output.push(Buffer.from(chunk).toString("utf8"));
    })();
    await waitFor(() => output.join("").includes("(not shown): "), "the prompt");
    expect(output.join("")).toContain("value of PROMPTED (not shown): ");
    proc.stdin.write(`${VALUE}\r`);
    await proc.stdin.end();
    expect(await proc.exited).toBe(0);
    await reader;
    expect(output.join("")).toContain("stored secret PROMPTED for ext_plain");
    expect(output.join("")).not.toContain(VALUE);
    expect((await secrets(["list"])).stdout).toBe("API_TOKEN\nPROMPTED\n");
  });

  test("delete removes it; a second delete is the server's 404 (exit 1), with --json on stdout", async () => {
    const del = await secrets(["delete", "PROMPTED"]);
    expect(del.code).toBe(0);
    expect(del.stdout).toBe("deleted secret PROMPTED of ext_plain\n");
    const again = await secrets(["delete", "PROMPTED", "--json"]);
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stdout)).toMatchObject({ ok: false, error: { code: "secret_not_found", status: 404 } });
    expect(again.stderr).toContain("404 secret_not_found");
    expect((await secrets(["list"])).stdout).toBe("API_TOKEN\n");
  });

  test("usage errors exit 2 and send nothing: a value as an argument (not echoed), a bad name, no name, an empty value", async () => {
    const asArgument = await secrets(["set", "API_TOKEN", VALUE]);
    expect(asArgument.code).toBe(2);
    expect(asArgument.stderr).toContain("never given as an argument");
    expect(asArgument.stdout + asArgument.stderr).not.toContain(VALUE);
    // Every other way a value can be typed on the line is refused without echoing it either.
    for (const args of [
      ["set", `API_TOKEN=${VALUE}`],
      ["set", "API_TOKEN", `--value=${VALUE}`],
      ["set", "API_TOKEN", "words", "of", VALUE],
      // A short flag with its value attached (getopt style): only the flag is named.
      ["set", "API_TOKEN", `-v${VALUE}`],
    ]) {
      const r = await secrets(args);
      expect({ args, code: r.code }).toEqual({ args, code: 2 });
      expect(r.stdout + r.stderr).not.toContain(VALUE);
    }
    const attached = await secrets(["set", "API_TOKEN", `-v${VALUE}`]);
    expect(attached.stderr).toStartWith("error: unknown argument: -v…\n");
    const atRoot = await run(built.bin, [`-v${VALUE}`], { cwd: work });
    expect(atRoot.code).toBe(2);
    expect(atRoot.stderr).toStartWith('error: unknown option "-v…"\n');
    const badName = await secrets(["set", "9lives"]);
    expect(badName.code).toBe(2);
    expect(badName.stderr).toContain('"9lives" is not a secret name');
    expect((await secrets(["delete"])).code).toBe(2);
    expect((await secrets(["rotate", "X"])).code).toBe(2);
    const empty = await setWithStdin("EMPTY").finish("\n");
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain("the secret value is empty");
    // A server named by URL: its control plane (which hands out the key) takes the token the user gives.
    const noKey = await run(built.bin, ["secrets", "list", "--extension", "ext_plain", "--target", baseUrl], {
      cwd: work,
      env: { EXT_ADMIN_TOKEN: adminToken },
    });
    // No key given: the emulator's own key for its first account, said on stderr (the same rule as every command).
    expect(noKey.code).toBe(0);
    expect(noKey.stderr).toMatch(/^using account acc_\w+ \(.+\) on http:/);
    expect((await secrets(["list"])).stdout).toBe("API_TOKEN\n");
  });

  test("a key without secrets:write gets the server's 403 (exit 1)", async () => {
    const r = await run(
      built.bin,
      ["secrets", "delete", "API_TOKEN", "--extension", "ext_plain", "--api-key", READ_ONLY_KEY, "--target", baseUrl],
      { cwd: work },
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/error: 403 \S+/);
  });
});
