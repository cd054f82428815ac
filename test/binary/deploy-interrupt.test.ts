/**
 * Ctrl-C in `ext deploy` outside the upload (which deploy-hints.test.ts covers): while packing, and during
 * `--wait` when the SIGINT comes twice, as it does through the npm launcher (the terminal signals the whole
 * process group; the launcher forwards its own). Each says what became of the deploy, exit 130.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { BUILD_TIMEOUT_MS, type Built, buildBinary, cleanEnv, type ServedBinary, serve } from "./helpers";

const ROOT = resolve(import.meta.dir, "../..");
const DEMO_KEY = "ext_demo_0123456789abcdefghijklmnopqrstuv";
const BIG = 48 * 1024 * 1024;
let built: Built;
let server: ServedBinary;
let extensionId: string;

beforeAll(async () => {
  built = buildBinary();
  server = await serve(built.bin, ["--memory", "--seed", "demo", "--no-rate-limits"], built.work);
  const res = await fetch(`${server.baseUrl}/extensions`, {
    method: "POST",
    headers: { authorization: `Bearer ${DEMO_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "Interrupted Board" }),
  });
  extensionId = ((await res.json()) as { extension: { id: string } }).extension.id;
}, BUILD_TIMEOUT_MS);
afterAll(async () => {
  await server?.stop();
  built?.cleanup();
});

function extensionFolder(bigFile = 0): string {
  const dir = mkdtempSync(join(built.work, "ext-"));
  mkdirSync(join(dir, "sounds"));
  writeFileSync(join(dir, "sounds/a.mp3"), Buffer.from("ID3\x03\x00\x00\x00\x00\x00\x00interrupt-sound"));
  writeFileSync(join(dir, "manifest.json"), JSON.stringify({ sounds: [{ name: "a", file: "sounds/a.mp3" }] }));
  if (bigFile > 0) {
    mkdirSync(join(dir, "static"));
    // Random bytes: gzip cannot make short work of them, so packing takes a while.
    const chunks = Array.from({ length: bigFile / (1024 * 1024) }, () => randomBytes(1024 * 1024));
    writeFileSync(join(dir, "static/big.bin"), Buffer.concat(chunks));
  }
  return dir;
}

async function until(check: () => boolean, what: string, ms = 30_000): Promise<void> {
  const deadline = performance.now() + ms;
  while (!check()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(2);
  }
}

/** How far process `pid` has read `file`, while it has it open; null when it does not. */
function readPosition(pid: number, file: string): number | null {
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      let target = "";
      try {
        target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        continue;
      }
      if (target !== file) continue;
      const pos = /^pos:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/fdinfo/${fd}`, "utf8"))?.[1];
      return pos === undefined ? null : Number(pos);
    }
  } catch {}
  return null;
}

const versions = async () =>
  (
    (await (
      await fetch(`${server.baseUrl}/extensions/${extensionId}/versions`, {
        headers: { authorization: `Bearer ${DEMO_KEY}` },
      })
    ).json()) as { versions: { version: string }[] }
  ).versions.map((v) => v.version);

describe("Ctrl-C in ext deploy", () => {
  test("while packing: said so, nothing uploaded, the temporary archive removed", async () => {
    const dir = extensionFolder(BIG);
    const tmp = mkdtempSync(join(built.work, "tmp-"));
    const proc = Bun.spawn(
      [built.bin, "deploy", dir, "--extension", extensionId, "--version", "9.0.0", "--target", server.baseUrl],
      {
        cwd: built.work,
        env: cleanEnv({ EXT_API_KEY: DEMO_KEY, TMPDIR: tmp }),
        stdout: "pipe",
        stderr: "pipe",
        stdin: "ignore",
      },
    );
    const big = join(dir, "static/big.bin");
    // Packing is under way and has most of the big file still to read: Ctrl-C lands in the packing.
    await until(() => (readPosition(proc.pid, big) ?? BIG) < BIG / 2, "the packing of the big file");
    proc.kill("SIGINT");
    const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
    expect(await proc.exited).toBe(130);
    expect(stderr.trimEnd().split("\n").at(-1)).toBe(
      "deploy cancelled while packing; nothing was uploaded and no version was created",
    );
    expect(stdout).toBe("");
    expect(readdirSync(tmp)).toEqual([]);
    expect(await versions()).not.toContain("9.0.0");
  }, 60_000);

  test("during --wait through the npm launcher (the SIGINT arrives twice): the version is said to be still pending", async () => {
    const launcher = join(ROOT, "packaging/npm/bin/ext.cjs");
    const args = [launcher, "deploy", extensionFolder(), "--extension", extensionId, "--version", "9.1.0", "--wait"];
    // A process group of its own, signalled as a terminal signals its foreground job.
    const child = spawn("node", args, {
      cwd: built.work,
      env: cleanEnv({ EXT_API_KEY: DEMO_KEY, EXT_BASE_URL: server.baseUrl, EXT_BINARY: built.bin }),
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let stderr = "";
    let stdout = "";
    child.stderr.on("data", (c) => (stderr += c));
    child.stdout.on("data", (c) => (stdout += c));
    const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)));
    await until(() => stderr.includes("Ctrl-C stops waiting"), "the wait notice");
    process.kill(-child.pid!, "SIGINT");
    expect(await exited).toBe(130);
    await until(() => child.stderr.closed, "the end of stderr", 5_000);
    const versionId = /version (ver_\w+) \(9\.1\.0\)/.exec(stderr)?.[1];
    expect(stderr.trimEnd().split("\n").at(-1)).toBe(`stopped waiting; version ${versionId} (9.1.0) is still pending`);
    expect(stdout).toContain(`version ${versionId} (9.1.0) of ${extensionId}: pending`);
  }, 60_000);
});
