/**
 * `ext conformance` on the compiled binary against `ext serve` (also the compiled binary), rate limits on
 * and off: exit 0, at least 25 test cases in the JUnit report, and the target's extension list as it was.
 * (--include-rate-limits spends the GET window for a minute of real time: contract.test.ts runs it in process,
 * where the emulator's clock can be moved past the window.)
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApiClient } from "../../client/index";
import demo from "../../fixtures/demo.json" with { type: "json" };
import { BUILD_TIMEOUT_MS, type Built, buildBinary, run, serve } from "../binary/helpers";

const [FULL_KEY, READ_ONLY_KEY] = demo.accounts[0]!.apiKeys.map((k) => k.key);
let built: Built;
beforeAll(() => {
  built = buildBinary();
}, BUILD_TIMEOUT_MS);
afterAll(() => built.cleanup());

for (const rateLimits of [true, false]) {
  describe(`the compiled binary, rate limits ${rateLimits ? "on" : "off"}`, () => {
    test("conformance passes with ≥ 25 JUnit test cases and leaves the list as it found it", async () => {
      const server = await serve(
        built.bin,
        ["--memory", "--seed", "demo", ...(rateLimits ? [] : ["--no-rate-limits"])],
        built.work,
      );
      try {
        const client = createApiClient({ baseUrl: server.url, apiKey: FULL_KEY! });
        await client.POST("/developer/v1/extensions", { body: { name: "Someone else's work" } });
        const before = (await client.GET("/developer/v1/extensions")).data;
        const junit = join(mkdtempSync(join(tmpdir(), "ext-junit-")), "conformance.xml");
        const args = ["conformance", "--target", server.baseUrl, "--read-only-key", READ_ONLY_KEY!, "--junit", junit];
        const result = await run(built.bin, args, { cwd: built.work, env: { EXT_API_KEY: FULL_KEY! } });
        expect({ code: result.code, stdout: result.stdout }).toEqual({
          code: 0,
          stdout: expect.stringContaining(" 0 differ"),
        });
        const xml = readFileSync(junit, "utf8");
        expect(Number(xml.match(/ tests="(\d+)"/)?.[1])).toBeGreaterThanOrEqual(25);
        expect(xml).toContain(' failures="0"');
        expect(xml.match(/<testcase /g)?.length).toBeGreaterThanOrEqual(25);
        expect(result.stdout + result.stderr + xml).not.toContain(FULL_KEY!);
        expect((await client.GET("/developer/v1/extensions")).data).toEqual(before!);
      } finally {
        await server.stop();
      }
    }, 60_000);
  });
}

test("--dry-run lists the requests and sends none", async () => {
  let requests = 0;
  const listener = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => (requests++, new Response("{}")) });
  const target = `http://127.0.0.1:${listener.port}/developer/v1`;
  const result = await run(built.bin, ["conformance", "--target", target, "--dry-run"], { cwd: built.work });
  listener.stop(true);
  expect(result.code).toBe(0);
  expect(requests).toBe(0);
  expect(result.stdout).toContain("requests would be sent:");
  expect(result.stdout).toContain("POST /developer/v1/extensions\n");
  expect(result.stdout).toContain("DELETE /developer/v1/extensions/{scratch-id}\n");
});

test("usage errors exit 2 and say what is missing, never echoing a key", async () => {
  const noKey = await run(built.bin, ["conformance", "--target", "http://127.0.0.1:9"], { cwd: built.work });
  expect(noKey.code).toBe(2);
  expect(noKey.stderr).toContain("no API key: give --api-key or set EXT_API_KEY");
  const badUrl = await run(built.bin, ["conformance", "--target", "not a url", "--api-key", "k-secret-123"], {
    cwd: built.work,
  });
  expect(badUrl.code).toBe(2);
  expect(badUrl.stderr).toContain("is not a URL");
  expect(badUrl.stderr).not.toContain("k-secret-123");
  const proxy = await run(built.bin, ["proxy", "--upstream", "ftp://x"], { cwd: built.work });
  expect(proxy.code).toBe(2);
  expect(proxy.stderr).toContain("--upstream must be an http or https URL");
});
