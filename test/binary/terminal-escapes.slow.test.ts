/**
 * Strings from the server or a file never reach the terminal raw: names and reasons holding an erase-line
 * (`ESC[2K` + CR, which rewrites the line a user reads) or an OSC 52 clipboard write (`ESC]52;c;…BEL`) are
 * shown escaped by the compiled CLI, in tables, the banner, `ext seed`'s keys, the "using account" line and
 * reject reasons; `--json` still prints them exactly.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readReadyFile } from "../helpers/ready-file";
import { BUILD_TIMEOUT_MS, type Built, buildBinary, cleanEnv, run } from "./helpers";

const ERASE = "\u001b[2K\r";
const CLIPBOARD = "\u001b]52;c;ZWNobyBwd25lZA==\u0007";
const KEY = "ext_escapes_test_key_0123456789abcdef";
const FIXTURE = {
  accounts: [
    {
      id: "acc_esc",
      name: `Evil${ERASE}Trusted`,
      apiKeys: [{ name: `ci${CLIPBOARD}`, key: KEY, scopes: ["*"] }],
      extensions: [{ id: "ext_esc", name: `Board${ERASE}Fine`, versions: [{ version: "1.0.0", status: "pending" }] }],
    },
  ],
};
// biome-ignore lint/suspicious/noControlCharactersInRegex: a raw control character in output is what is looked for.
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

let built: Built;
let server: ReturnType<typeof Bun.spawn>;
let banner = "";
let info: { baseUrl: string; adminUrl: string; url: string; adminToken: string };

beforeAll(async () => {
  built = buildBinary();
  writeFileSync(join(built.work, "fixture.json"), JSON.stringify(FIXTURE));
  const ready = join(mkdtempSync(join(tmpdir(), "ext-ready-")), "ready.json");
  server = Bun.spawn(
    [
      built.bin,
      "serve",
      "--memory",
      "--port",
      "0",
      "--ready-file",
      ready,
      "--seed",
      "fixture.json",
      "--no-rate-limits",
    ],
    { cwd: built.work, env: cleanEnv(), stdout: "pipe", stderr: "pipe" },
  );
  // The banner is complete once the ready file is written (it is the start's last step); read until then.
  const reader = (server.stdout as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  while (!banner.includes("api key:")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`ext serve stopped: ${await new Response(server.stderr as ReadableStream).text()}`);
    banner += decoder.decode(value);
  }
  reader.releaseLock();
  info = await readReadyFile<typeof info>(ready, () => server.exitCode !== null);
  // A reject reason with a clipboard write.
  const list = await fetch(`${info.baseUrl}/extensions/ext_esc/versions`, {
    headers: { authorization: `Bearer ${KEY}` },
  });
  const versionId = ((await list.json()) as { versions: { id: string }[] }).versions[0]!.id;
  const rejected = await fetch(`${info.adminUrl}/versions/${versionId}/reject`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${info.adminToken}` },
    body: JSON.stringify({ reason: `bad${CLIPBOARD}` }),
  });
  expect(rejected.status).toBe(200);
}, BUILD_TIMEOUT_MS);

afterAll(async () => {
  server?.kill("SIGTERM");
  await server?.exited;
  built?.cleanup();
});

const ext = (args: string[], env: Record<string, string> = { EXT_API_KEY: KEY }) =>
  run(built.bin, [...args, "--target", info.baseUrl], {
    cwd: built.work,
    env: { EXT_ADMIN_TOKEN: info.adminToken, ...env },
  });

describe("server and file strings in the CLI's output", () => {
  test("the banner shows a key name from the fixture escaped", () => {
    expect(banner).not.toMatch(RAW);
    expect(banner).toContain('"ci\\x1b]52;c;ZWNobyBwd25lZA==\\x07"');
  });

  test("ext extensions list / get: names escaped in the table and the fields; --json exact", async () => {
    for (const args of [
      ["extensions", "list"],
      ["extensions", "get", "ext_esc"],
    ]) {
      const { code, stdout } = await ext(args);
      expect(code).toBe(0);
      expect(stdout).not.toMatch(RAW);
      expect(stdout).toContain("Board\\x1b[2K\\rFine");
    }
    const json = await ext(["extensions", "get", "ext_esc", "--json"]);
    expect(JSON.parse(json.stdout).name).toBe(`Board${ERASE}Fine`);
  });

  test("ext versions list: the reject reason escaped", async () => {
    const { code, stdout } = await ext(["versions", "list", "--extension", "ext_esc"]);
    expect(code).toBe(0);
    expect(stdout).not.toMatch(RAW);
    expect(stdout).toContain("bad\\x1b]52;c;ZWNobyBwd25lZA==\\x07");
  });

  test('the "using account" line (no key given: the CLI asks the control plane for one) shows the name escaped', async () => {
    const { code, stderr } = await ext(["extensions", "list"], {});
    expect(code).toBe(0);
    expect(stderr).not.toMatch(RAW);
    expect(stderr).toContain("using account acc_esc (Evil\\x1b[2K\\rTrusted)");
  });

  test("ext seed: the key names it reports escaped", async () => {
    const { code, stdout } = await run(built.bin, ["seed", "fixture.json", "--data-dir", "seeded"], {
      cwd: built.work,
    });
    expect(code).toBe(0);
    expect(stdout).not.toMatch(RAW);
    expect(stdout).toContain('"ci\\x1b]52;c;ZWNobyBwd25lZA==\\x07"');
  });
});
