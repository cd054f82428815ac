/** `ext logs [--follow] [--json]` from source against a real emulator on a socket. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { resolve } from "node:path";
import { openRequestStreams } from "../../server/control-plane/request-stream";
import { cleanEnv } from "../helpers/clean-env";
import { startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";
import { extBinary } from "../helpers/run-cli";
import { waitFor } from "../helpers/wait-for";

const ROOT = resolve(import.meta.dir, "../..");
let emu: TestEmulator;
beforeAll(async () => (emu = await startTestEmulator()));
afterAll(() => stopTestEmulator(emu));

const logs = (args: string[]) =>
  Bun.spawn([extBinary(), "logs", "--target", emu.url, ...args], {
    cwd: ROOT,
    // A server named by URL: the token is the user's to give.
    env: cleanEnv({ EXT_ADMIN_TOKEN: emu.runtime.control.adminToken }),
    stdout: "pipe",
    stderr: "pipe",
  });

test("prints the recent requests oldest first, as text or one JSON object per line", async () => {
  await emu.client.GET("/developer/v1/extensions/{id}", { params: { path: { id: "ext_first" } } });
  await emu.client.GET("/developer/v1/extensions/{id}", { params: { path: { id: "ext_second" } } });
  const text = logs(["--limit", "2"]);
  const out = await new Response(text.stdout).text();
  expect(await text.exited).toBe(0);
  const lines = out.trim().split("\n");
  expect(lines).toHaveLength(2);
  // A refusal shows its error code beside its status.
  expect(lines[0]).toMatch(/GET +404 extension_not_found {2}\/developer\/v1\/extensions\/ext_first {2}acc_test/);
  expect(lines[1]).toContain("/extensions/ext_second");

  const json = logs(["--limit", "1", "--json"]);
  const parsed = JSON.parse((await new Response(json.stdout).text()).trim());
  expect(parsed).toMatchObject({
    method: "GET",
    path: "/developer/v1/extensions/ext_second",
    status: 404,
    errorCode: "extension_not_found",
    accountId: "acc_test",
  });
});

test("--follow prints each new request as it completes", async () => {
  const proc = logs(["--follow", "--json", "--limit", "0"]);
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  let out = "";
  // The stream is open once the server has a subscriber; requests made before are not printed (limit 0).
  // One read stays pending across turns, so no chunk is dropped while requests are sent.
  let pending = reader.read();
  for (let i = 0; i < 200 && !out.includes("ext_followed"); i++) {
    await emu.client.GET("/developer/v1/extensions/{id}", { params: { path: { id: "ext_followed" } } });
    const next = await Promise.race([pending, Bun.sleep(100).then(() => null)]);
    if (next === null) continue;
    if (next.done) break;
    out += decoder.decode(next.value, { stream: true });
    pending = reader.read();
  }
  proc.kill();
  await proc.exited;
  const first = JSON.parse(out.split("\n")[0]!);
  expect(first).toMatchObject({ path: "/developer/v1/extensions/ext_followed", status: 404 });
});

test("--follow ends with exit 1, saying so, when the emulator stops and so closes the stream", async () => {
  const stopping = await startTestEmulator();
  const proc = Bun.spawn([extBinary(), "logs", "--follow", "--target", stopping.url], {
    cwd: ROOT,
    env: cleanEnv({ EXT_ADMIN_TOKEN: stopping.runtime.control.adminToken }),
    stdout: "pipe",
    stderr: "pipe",
  });
  try {
    await waitFor(() => openRequestStreams(stopping.runtime.control.requestLog) > 0, "the stream to open");
  } finally {
    await stopTestEmulator(stopping);
  }
  expect(await proc.exited).toBe(1);
  expect(await new Response(proc.stderr).text()).toContain("the emulator closed the request stream: it stopped");
});

test("a bad --limit is a usage error (exit 2); an unreachable emulator exit 1", async () => {
  const bad = logs(["--limit", "x"]);
  expect(await bad.exited).toBe(2);
  const gone = Bun.spawn([extBinary(), "logs", "--target", "http://127.0.0.1:9"], {
    cwd: ROOT,
    env: cleanEnv(),
    stdout: "pipe",
    stderr: "pipe",
  });
  expect(await gone.exited).toBe(1);
  expect(await new Response(gone.stderr).text()).toContain("is the emulator running?");
});

test("a request path with control characters is printed escaped, never raw", async () => {
  // A stand-in emulator on a real socket: the real one never logs such a path, `ext logs` must not trust that.
  const entry = {
    id: 1,
    at: "2026-01-01T00:00:00.000Z",
    method: "GET",
    path: "/developer/v1/extensions/x\n\u001b[2K2026-01-01  GET 200  /forged",
    status: 404,
    errorCode: null,
    accountId: null,
    keyId: null,
    client: null,
    durationMs: 1,
  };
  const stub = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => Response.json({ requests: [entry] }) });
  try {
    const proc = Bun.spawn([extBinary(), "logs", "--target", `http://127.0.0.1:${stub.port}`], {
      cwd: ROOT,
      env: cleanEnv(),
      stdout: "pipe",
      stderr: "pipe",
    });
    const out = await new Response(proc.stdout).text();
    expect(await proc.exited).toBe(0);
    expect(out.trim().split("\n")).toHaveLength(1);
    expect(out).not.toContain("\u001b");
    expect(out).toContain("/x\\n\\x1b[2K2026-01-01");
  } finally {
    stub.stop(true);
  }
});
