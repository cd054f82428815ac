/**
 * `ext deploy` where a newcomer goes wrong, from the compiled binary against the compiled binary's `serve`
 * on a real data dir: a file given for the folder, a manifest one level down, a manifest with a JSON syntax
 * error, a label that differs from the manifest's, "nothing was uploaded" said once, Ctrl-C during the
 * upload (through a TCP proxy that holds the body back, so the upload is surely in flight), and an
 * oversized upload sent with curl.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Socket } from "bun";
import { announce } from "../helpers/raw-http";
import { waitFor } from "../helpers/wait-for";
import { BUILD_TIMEOUT_MS, type Built, buildBinary, cleanEnv, run, type ServedBinary, serve } from "./helpers";

const KEY = "ext_hints_test_key_0123456789abcdef";
/** A bundle cap small enough for a test file: the server's 413 names it. */
const SMALL_TOTAL = 1024 * 1024;
const FIXTURE = {
  accounts: [
    {
      id: "acc_hints",
      name: "Hints",
      apiKeys: [{ name: "ci", key: KEY, scopes: ["*"] }],
      extensions: [
        { id: "ext_hints", name: "Hints Board" },
        { id: "ext_small", name: "Small Board", overrides: { bundle_total_bytes: SMALL_TOTAL } },
        { id: "ext_no_sounds", name: "No Sounds", overrides: { max_sounds_per_extension: 0 } },
      ],
    },
  ],
};

let built: Built;
let server: ServedBinary;
let work: string;
let dataDir: string;

beforeAll(async () => {
  built = buildBinary();
  work = built.work;
  dataDir = join(work, "data");
  writeFileSync(join(work, "fixture.json"), JSON.stringify(FIXTURE));
  server = await serve(built.bin, ["--data-dir", dataDir, "--seed", "fixture.json", "--no-rate-limits"], work);
}, BUILD_TIMEOUT_MS);
afterAll(async () => {
  await server?.stop();
  built?.cleanup();
});

/** Writes `files` (path → content) into a fresh directory under the work dir; returns its name there. */
function tree(files: Record<string, string | Uint8Array>): string {
  const dir = mkdtempSync(join(work, "ext-"));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir.slice(work.length + 1);
}

const deploy = (args: string[], target = server.baseUrl) =>
  run(built.bin, ["deploy", ...args, "--api-key", KEY, "--target", target], { cwd: work });

async function versionLabels(extensionId: string): Promise<string[]> {
  const res = await fetch(`${server.baseUrl}/extensions/${extensionId}/versions`, {
    headers: { authorization: `Bearer ${KEY}` },
  });
  return ((await res.json()) as { versions: { version: string }[] }).versions.map((v) => v.version);
}

const count = (text: string, part: string) => text.split(part).length - 1;

describe("what to deploy", () => {
  test("a file instead of a folder says so, and names the folder when the file is its manifest.json", async () => {
    const dir = tree({ "manifest.json": '{"version":"1.0.0"}' });
    const r = await deploy([`${dir}/manifest.json`, "--extension", "ext_hints"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `error: ${dir}/manifest.json is a file; ext deploy takes the folder that holds manifest.json (here: ext deploy ${dir})\n`,
    );
    expect(r.stderr).not.toContain("missing");
  });

  test("a manifest.json one level down (dist/) gets a hint naming the folder to deploy", async () => {
    const dir = tree({
      "dist/manifest.json": '{"version":"1.0.0"}',
      "tools/helper/index.ts": "",
      "package.json": "{}",
    });
    const r = await deploy([dir, "--extension", "ext_hints"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `manifest.json is missing in ${dir}; found ${dir}/dist/manifest.json one level down: deploy that folder (ext deploy ${dir}/dist)`,
    );
    // No manifest anywhere near: no hint.
    const bare = tree({ "tools/helper/index.ts": "" });
    const none = await deploy([bare, "--extension", "ext_hints"]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain(`manifest.json is missing in ${bare}\n`);
    expect(none.stderr).not.toContain("one level down");
  });

  test("a JSON syntax error in manifest.json: FILE:LINE:COLUMN, the line and a caret; --json has line and column", async () => {
    const dir = tree({ "manifest.json": '{\n  "version": "1.0.0"\n  "sounds": []\n}\n' });
    const r = await deploy([dir, "--extension", "ext_hints"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `${dir}/manifest.json:3:3: not valid JSON: a comma is missing before this property\n    3 |   "sounds": []\n      |   ^\n`,
    );
    const json = await deploy([dir, "--extension", "ext_hints", "--json"]);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout).problems[0]).toMatchObject({ path: "manifest.json", line: 3, column: 3 });
  });
});

describe("labels and refusals", () => {
  test("a --version label that differs from the manifest's version is a warning; the deploy goes on", async () => {
    const dir = tree({ "manifest.json": '{"version":"1.0.0"}' });
    const r = await deploy([dir, "--extension", "ext_hints", "--version", "1.0.7"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      'warning: the version label 1.0.7 (--version) differs from version "1.0.0" in manifest.json',
    );
    expect(await versionLabels("ext_hints")).toContain("1.0.7");
    const same = await deploy([dir, "--extension", "ext_hints", "--version", "1.0.0"]);
    expect(same.code).toBe(0);
    expect(same.stderr).not.toContain("differs");
  });

  test('a refused bundle says "nothing was uploaded" once, on a real deploy and on a dry run', async () => {
    const dir = tree({
      "manifest.json": JSON.stringify({ version: "1.0.0", sounds: [{ name: "a", file: "a.mp3" }] }),
      "a.mp3": "ID3\x03\x00\x00\x00\x00\x00\x00abc",
    });
    for (const extra of [[], ["--dry-run"]]) {
      const r = await deploy([dir, "--extension", "ext_no_sounds", ...extra]);
      expect(r.code).toBe(2);
      expect(count(r.stdout + r.stderr, "nothing was uploaded")).toBe(1);
    }
  });
});

describe("an oversized upload", () => {
  // Over a raw socket, head only: the server answers from the announced length before the body. (curl is
  // told "100 Continue" by Bun and may still be sending when the 413 closes the connection: its exit code
  // then depends on timing, so it is not what this test runs.)
  test("the 413 says the limit in MB and which limit it is, before a byte of the body is sent", async () => {
    const answer = await announce(
      Number(new URL(server.baseUrl).port),
      "POST",
      "/developer/v1/extensions/ext_small/versions",
      { Authorization: `Bearer ${KEY}`, "Content-Type": "multipart/form-data; boundary=x" },
      SMALL_TOTAL + 300 * 1024,
    );
    expect(answer.status).toBe(413);
    expect(answer.body.error).toEqual({
      code: "payload_too_large",
      status: 413,
      message:
        "Request body exceeds the limit of 1.3 MB (1310720 bytes) for a version upload: the bundle_total_bytes limit of 1.0 MB plus 256 KB for the form's other fields.",
    });
  });
});

/**
 * A TCP proxy in front of the server that forwards the first `passBytes` of each request and holds back
 * the rest: the upload is then surely in flight, part of it on the server, when the test acts.
 */
function holdingProxy(upstreamPort: number, passBytes: number) {
  let forwarded = 0;
  let upstreamClosed = false;
  const ups = new Set<Socket<unknown>>();
  const proxy = Bun.listen<{ up: Promise<Socket<unknown>> }>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(client) {
        client.data = {
          up: Bun.connect({
            hostname: "127.0.0.1",
            port: upstreamPort,
            socket: {
              data: (_up, chunk) => void client.write(chunk),
              close: () => {
                upstreamClosed = true;
                client.end();
              },
            },
          }).then((up) => {
            ups.add(up);
            return up;
          }),
        };
      },
      async data(client, chunk) {
        const room = passBytes - forwarded;
        if (room <= 0) return;
        const part = chunk.subarray(0, room);
        forwarded += part.length;
        (await client.data.up).write(part);
      },
      async close(client) {
        (await client.data.up).end();
      },
    },
  });
  return {
    port: proxy.port,
    forwarded: () => forwarded,
    upstreamClosed: () => upstreamClosed,
    stop() {
      for (const up of ups) up.end();
      proxy.stop(true);
    },
  };
}

describe("Ctrl-C during the upload", () => {
  test('says "upload cancelled; nothing was submitted", exits 130, and the server keeps nothing', async () => {
    const dir = tree({ "manifest.json": '{"version":"9.9.9"}', "assets/blob.bin": randomBytes(3 * 1024 * 1024) });
    const tmp = join(dataDir, "blobs", "tmp");
    const tempsBefore = readdirSync(tmp).length;
    const proxy = holdingProxy(Number(new URL(server.url).port), 256 * 1024);
    try {
      const proc = Bun.spawn(
        [
          built.bin,
          "deploy",
          dir,
          "--extension",
          "ext_hints",
          "--api-key",
          KEY,
          "--target",
          `http://127.0.0.1:${proxy.port}/developer/v1`,
        ],
        { cwd: work, env: cleanEnv(), stdout: "pipe", stderr: "pipe", stdin: "ignore" },
      );
      // Part of the body has reached the server, which is writing it to a temporary file.
      await waitFor(() => proxy.forwarded() >= 256 * 1024, "the first part of the upload");
      await waitFor(() => readdirSync(tmp).length > tempsBefore, "the server's temporary upload file");
      proc.kill("SIGINT");
      const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
      expect(await proc.exited).toBe(130);
      expect(stderr.trimEnd().split("\n").at(-1)).toBe("upload cancelled; nothing was submitted");
      expect(stdout).toContain("no version was created for 9.9.9 of ext_hints");
      // The server drops the partial body and creates no version.
      await waitFor(() => readdirSync(tmp).length === tempsBefore, "the server to remove the partial upload");
      expect(await versionLabels("ext_hints")).not.toContain("9.9.9");
    } finally {
      proxy.stop();
    }
  });
});
