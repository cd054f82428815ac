/**
 * client/ runs in Node too (the Node helper ships it): bundled as ESM by Bun.build, as the package build
 * does, then driven by a plain Node script against a real emulator — a create, a refusal, a streamed
 * version upload (fetch needs `duplex` there) and the request log through readEvents.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type BundleDir, bundleDir } from "../helpers/bundles";
import { cleanEnv } from "../helpers/clean-env";
import { DEMO_KEY, startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";

const ROOT = resolve(import.meta.dir, "../..");
let emu: TestEmulator;
let bundles: BundleDir;
let dir: string;
beforeAll(async () => {
  emu = await startTestEmulator();
  bundles = bundleDir();
  dir = mkdtempSync(join(tmpdir(), "ext-client-node-"));
});
afterAll(async () => {
  await stopTestEmulator(emu);
  bundles.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const SCRIPT = `
import { createReadStream, statSync } from "node:fs";
import { Readable } from "node:stream";
import { ApiCallError, createAdminClient, createApiClient, readEvents, unwrap, versionUpload } from "./client.mjs";

const [origin, apiKey, bundlePath, adminToken] = process.argv.slice(2);
const api = createApiClient({ baseUrl: origin, apiKey });
const admin = createAdminClient({ url: origin, adminToken });
const out = {};

const live = await admin.GET("/_emulator/requests/stream", { params: { query: { recent: 0 } }, parseAs: "stream" });
unwrap(live);
const events = readEvents(live.response);
const firstEvent = events.next();

const { extension } = unwrap(await api.POST("/developer/v1/extensions", { body: { name: "Node Board" } }));
out.status = extension.status;
out.logged = (await firstEvent).value.path;
await events.return();

try {
  unwrap(await api.GET("/developer/v1/extensions/{id}", { params: { path: { id: "ext_nowhere" } } }));
} catch (e) {
  out.refusal = e instanceof ApiCallError ? [e.status, e.code, e.method, e.path] : String(e);
}

const stream = Readable.toWeb(createReadStream(bundlePath));
const submitted = unwrap(
  await api.POST("/developer/v1/extensions/{id}/versions", {
    params: { path: { id: extension.id } },
    ...versionUpload({ version: "1.0.0", bundle: { stream, size: statSync(bundlePath).size } }),
  }),
);
out.version = [submitted.version.version, submitted.version.status];
console.log(JSON.stringify(out));
`;

test("the bundled client works from Node: create, refusal, streamed upload, live log", async () => {
  const built = await Bun.build({ entrypoints: [join(ROOT, "client/index.ts")], target: "node", format: "esm" });
  expect(built.success, built.logs.join("\n")).toBe(true);
  writeFileSync(join(dir, "client.mjs"), await built.outputs[0]!.text());
  writeFileSync(join(dir, "main.mjs"), SCRIPT);
  const proc = Bun.spawn(
    ["node", join(dir, "main.mjs"), emu.url, DEMO_KEY, await bundles.make(), emu.runtime.control.adminToken],
    {
      cwd: dir,
      env: cleanEnv({}),
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  expect(stderr).toBe("");
  expect(code).toBe(0);
  expect(JSON.parse(stdout)).toEqual({
    status: "draft",
    logged: "/developer/v1/extensions",
    refusal: [404, "extension_not_found", "GET", "/developer/v1/extensions/ext_nowhere"],
    version: ["1.0.0", "pending"],
  });
}, 60_000);
