/**
 * `ext deploy --wait` from the compiled binary against the compiled binary's `serve` (no auto-approve):
 * it says at once what it waits for and how to end the wait, waits 120 s by default, shows the time
 * waited on a terminal, and Ctrl-C stops the wait with a word on what became of the version.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { adminFetch, BUILD_TIMEOUT_MS, type Built, buildBinary, cleanEnv, type ServedBinary, serve } from "./helpers";

const KEY = "ext_wait_test_key_0123456789abcdefgh";
const FIXTURE = {
  accounts: [
    {
      id: "acc_wait",
      name: "Wait",
      apiKeys: [{ name: "ci", key: KEY, scopes: ["*"] }],
      extensions: [{ id: "ext_wait", name: "Wait Board" }],
    },
  ],
};

let built: Built;
let server: ServedBinary;

beforeAll(async () => {
  built = buildBinary();
  writeFileSync(join(built.work, "fixture.json"), JSON.stringify(FIXTURE));
  server = await serve(built.bin, ["--memory", "--seed", "fixture.json", "--no-rate-limits"], built.work);
}, BUILD_TIMEOUT_MS);
afterAll(async () => {
  await server?.stop();
  built?.cleanup();
});

function extensionDir(version: string): string {
  const dir = mkdtempSync(join(built.work, "ext-"));
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "manifest.json"), JSON.stringify({ version }));
  return dir;
}

const deployArgs = (dir: string, extra: string[] = []) => [
  "deploy",
  dir,
  "--extension",
  "ext_wait",
  "--api-key",
  KEY,
  "--target",
  server.baseUrl,
  "--wait",
  ...extra,
];

/** Reads a stream as it comes, until `part` has arrived; returns everything read so far and a way to read on. */
function reader(stream: ReadableStream<Uint8Array>) {
  const r = stream.getReader();
  const decoder = new TextDecoder();
  let text = "";
  return {
    async until(part: string): Promise<string> {
      while (!text.includes(part)) {
        const { value, done } = await r.read();
        if (done) throw new Error(`the stream ended before ${JSON.stringify(part)}:\n${text}`);
        text += decoder.decode(value, { stream: true });
      }
      return text;
    },
    async rest(): Promise<string> {
      for (;;) {
        const { value, done } = await r.read();
        if (done) return text;
        text += decoder.decode(value, { stream: true });
      }
    },
  };
}

const versionIdIn = (text: string) => /version (ver_[0-9a-z]+) \(/.exec(text)?.[1];

describe("ext deploy --wait", () => {
  test("says at once what it waits for (120 s by default) and the ways to end the wait; an approval ends it", async () => {
    const proc = Bun.spawn([built.bin, ...deployArgs(extensionDir("1.0.0"))], {
      cwd: built.work,
      env: cleanEnv(),
      stdout: "pipe",
      stderr: "pipe",
      stdin: "ignore",
    });
    const stderr = reader(proc.stderr);
    const notice = await stderr.until("Ctrl-C stops waiting");
    const versionId = versionIdIn(notice)!;
    expect(versionId).toBeDefined();
    expect(notice).toContain(
      [
        `waiting up to 120 s (--timeout) for version ${versionId} (1.0.0) to be approved or rejected; nothing approves it unless one of these does:`,
        "  - approve it in the dashboard, on its Admin page (`ext dashboard` logs a browser in to it)",
        `  - ext versions approve ${versionId}`,
        "  - restart the emulator with --auto-approve (every later version is approved by itself)",
        "Ctrl-C stops waiting; the version stays as it is.",
      ].join("\n"),
    );
    // What a reviewer does: the wait ends with the approval.
    const approved = await adminFetch(server, `/versions/${versionId}/approve`, { method: "POST" });
    expect(approved.status).toBe(200);
    const stdout = await new Response(proc.stdout).text();
    expect(await proc.exited).toBe(0);
    expect(stdout).toContain(`version ${versionId} (1.0.0) of ext_wait: approved`);
    await stderr.rest();
  });

  test("Ctrl-C stops the wait: exit 130, and the version is said to be still pending", async () => {
    const proc = Bun.spawn([built.bin, ...deployArgs(extensionDir("2.0.0"))], {
      cwd: built.work,
      env: cleanEnv(),
      stdout: "pipe",
      stderr: "pipe",
      stdin: "ignore",
    });
    const stderr = reader(proc.stderr);
    const versionId = versionIdIn(await stderr.until("Ctrl-C stops waiting"))!;
    proc.kill("SIGINT");
    const stdout = await new Response(proc.stdout).text();
    expect(await proc.exited).toBe(130);
    expect((await stderr.rest()).trimEnd().split("\n").at(-1)).toBe(
      `stopped waiting; version ${versionId} (2.0.0) is still pending`,
    );
    expect(stdout).toContain(`version ${versionId} (2.0.0) of ext_wait: pending`);
  });

  test("on a terminal, the time waited is shown and redrawn in place", async () => {
    const command = [built.bin, ...deployArgs(extensionDir("3.0.0"), ["--timeout", "1"])]
      .map((a) => `'${a}'`)
      .join(" ");
    const proc = Bun.spawn(["script", "-qec", command, "/dev/null"], {
      cwd: built.work,
      env: cleanEnv({ TERM: "dumb" }),
      stdout: "pipe",
      stderr: "pipe",
    });
    const text = await new Response(proc.stdout).text();
    expect(await proc.exited).toBe(1);
    expect(text).toContain("\rwaited 0 s of 1");
    expect(text).toMatch(/is still pending after 1 s \(--timeout\)/);
  });
});
