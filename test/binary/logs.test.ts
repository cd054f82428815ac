/**
 * `ext logs` from the compiled binary against the compiled binary's `serve`: a refused request shows its
 * error code beside its status; a success shows none.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { BUILD_TIMEOUT_MS, type Built, buildBinary, run, type ServedBinary, serve } from "./helpers";

const KEY = "ext_logs_test_key_0123456789abcdefgh";
let built: Built;
let server: ServedBinary;

beforeAll(async () => {
  built = buildBinary();
  const fixture = { accounts: [{ id: "acc_logs", name: "Logs", apiKeys: [{ name: "ci", key: KEY, scopes: ["*"] }] }] };
  writeFileSync(join(built.work, "fixture.json"), JSON.stringify(fixture));
  server = await serve(built.bin, ["--memory", "--seed", "fixture.json", "--no-rate-limits"], built.work);
}, BUILD_TIMEOUT_MS);
afterAll(async () => {
  await server?.stop();
  built?.cleanup();
});

test("ext logs shows the error code of a 4xx/5xx answer", async () => {
  const call = (path: string, key = KEY) =>
    fetch(`${server.baseUrl}${path}`, { headers: { authorization: `Bearer ${key}` } });
  expect((await call("/extensions")).status).toBe(200);
  expect((await call("/extensions/ext_missing")).status).toBe(404);
  expect((await call("/extensions", "ext_wrong_key_0123456789abcdefghijklm")).status).toBe(401);
  const r = await run(built.bin, ["logs", "--target", server.url, "--limit", "3"], {
    cwd: built.work,
    env: { EXT_ADMIN_TOKEN: server.adminToken },
  });
  expect(r.code).toBe(0);
  const lines = r.stdout.trimEnd().split("\n");
  expect(lines).toHaveLength(3);
  expect(lines[0]).toMatch(/ GET +200 {2}\/developer\/v1\/extensions {2}acc_logs /);
  expect(lines[1]).toMatch(/ GET +404 extension_not_found {2}\/developer\/v1\/extensions\/ext_missing {2}acc_logs /);
  expect(lines[2]).toMatch(/ GET +401 unauthorized {2}\/developer\/v1\/extensions {2}- /);
});
