/** `ext openapi [--yaml]`: the served document, printed without starting a server. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { resolve } from "node:path";
import { everyRoute } from "../../server/start/app";
import { documentRuntime } from "../../server/start/document";
import { cleanEnv } from "../helpers/clean-env";
import { startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";
import { extBinary } from "../helpers/run-cli";

const ROOT = resolve(import.meta.dir, "../..");
let emu: TestEmulator;
let served: unknown;
beforeAll(async () => {
  emu = await startTestEmulator();
  // Every route's validators compiled first: Elysia closes the object schemas that do not say whether
  // they are open, and the printed document (a fresh process, nothing compiled) must not differ.
  for (const route of (await everyRoute(emu.runtime)).routes) route.compile();
  served = (await emu.rawRequest("GET", "/openapi.json")).body;
  expect((served as { servers: unknown }).servers).toEqual([{ url: emu.url, description: "This emulator" }]);
  // Printed without a server, the document names the default address; the rest is the same.
  served = {
    ...(served as object),
    servers: [{ url: "http://127.0.0.1:4780", description: "`ext serve` with its default address" }],
  };
});
afterAll(() => stopTestEmulator(emu));

async function ext(args: string[], readBytes?: number, env: Record<string, string> = {}) {
  const proc = Bun.spawn([extBinary(), ...args], {
    cwd: ROOT,
    env: cleanEnv({ EXT_PORT: "1", EXT_HOST: "0.0.0.0", ...env }),
    stdout: "pipe",
    stderr: "pipe",
  });
  let stdout = "";
  if (readBytes === undefined) stdout = await new Response(proc.stdout).text();
  else {
    // Read a little, then close the pipe like `| head` does.
    const reader = proc.stdout.getReader();
    const { value } = await reader.read();
    stdout = new TextDecoder().decode(value).slice(0, readBytes);
    await reader.cancel();
  }
  const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
  return { stdout, stderr, code };
}
const join = (p: string) => resolve(ROOT, p);

test("prints the document a running emulator serves, as JSON, whatever the environment says", async () => {
  const { stdout, stderr, code } = await ext(["openapi"]);
  expect(stderr).toBe("");
  expect(code).toBe(0);
  expect(JSON.parse(stdout)).toEqual(served);
  expect(stdout.startsWith('{\n  "openapi": "3.1')).toBe(true);
});

test("builds no runtime: no database, no memory directory, so it works where a server could not start", async () => {
  // A temp dir that does not exist: a runtime (even in memory) makes its directory there, and would fail.
  const { stdout, stderr, code } = await ext(["openapi"], undefined, { TMPDIR: join("does-not-exist/tmp") });
  expect(stderr).toBe("");
  expect(code).toBe(0);
  expect(JSON.parse(stdout)).toEqual(served);
});

test("the stand-in runtime's server parts are empty objects: a call into one fails before any server work", () => {
  const runtime = documentRuntime();
  for (const part of [runtime.db, runtime.blobs, runtime.snapshots, runtime.cipher, runtime.services.auth])
    expect(Object.keys(part)).toEqual([]);
  expect(() => runtime.services.extensions.get("acc_x", "ext_x")).toThrow(TypeError);
  expect(() => runtime.db.select()).toThrow(TypeError);
  expect(() => runtime.seed({} as never)).toThrow(TypeError);
});

test("--yaml prints the same document as YAML", async () => {
  const { stdout, code } = await ext(["openapi", "--yaml"]);
  expect(code).toBe(0);
  expect(stdout.startsWith("openapi: 3.1")).toBe(true);
  expect(Bun.YAML.parse(stdout)).toEqual(served);
});

test("a reader that stops early (| head) is no error", async () => {
  const { stdout, stderr, code } = await ext(["openapi"], 10);
  expect(stdout.length).toBeGreaterThan(0);
  expect(stderr).toBe("");
  expect(code).toBe(0);
});
