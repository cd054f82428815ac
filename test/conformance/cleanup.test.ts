/**
 * Cleanup holds under failure: a target that starts answering 500 halfway, and a run stopped by SIGINT
 * midway, leave no scratch extension behind — or the run says exactly which one remains and why.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { resolve } from "node:path";
import { runConformance } from "../../tools/conformance/run";
import { type Emulator, startEmulator } from "../../tools/helper/start-emulator";
import { extBinary } from "../helpers/run-cli";
import { type DifferingServer, startDifferingServer } from "./differing-server";

const ROOT = resolve(import.meta.dir, "../..");

let emulator: Emulator;
let server: DifferingServer | null = null;
beforeEach(async () => {
  emulator = await startEmulator({ rateLimits: false });
});
afterEach(async () => {
  server?.stop();
  server = null;
  await emulator.stop();
});

const scratchLeft = async () => {
  const { data } = await emulator.client.GET("/developer/v1/extensions");
  return (data?.extensions ?? []).filter((e) => e.name.startsWith("ext-conformance-scratch")).map((e) => e.id);
};

describe("cleanup", () => {
  test("a target answering 500 after the create: the scratch extension is still deleted", async () => {
    server = startDifferingServer(emulator.url, { failAfterCreate: true, deleteWorks: true });
    const report = await runConformance({ url: server.url, apiKey: emulator.apiKey });
    expect(report.results.find((r) => r.id === "extensions.get")?.note).toContain("status should be 200, got 500");
    expect(report.cleanup).toMatchObject({ removed: true });
    expect(await scratchLeft()).toEqual([]);
  });

  test("a target whose DELETE also answers 500: the run names the extension left and why", async () => {
    server = startDifferingServer(emulator.url, { failAfterCreate: true });
    const report = await runConformance({ url: server.url, apiKey: emulator.apiKey });
    const left = await scratchLeft();
    expect(left).toHaveLength(1);
    expect(report.cleanup).toEqual({
      extensionId: left[0]!,
      removed: false,
      reason: `${left[0]}: DELETE answered 500 internal_error; delete it with: ext extensions delete ${left[0]}`,
    });
  });

  test("a full rate window (the user's own traffic) is waited out as Retry-After says, then the request is sent again", async () => {
    server = startDifferingServer(emulator.url, {
      rateLimitOnce: (method, path) => method === "PATCH" && !path.includes("ext_0000"),
    });
    const report = await runConformance({ url: server.url, apiKey: emulator.apiKey });
    expect(report.results.filter((r) => r.kind === "spec" && r.outcome === "differed").map((r) => r.id)).toEqual([]);
    const patches = server.seen.filter((s) => s.startsWith("PATCH") && !s.includes("ext_0000"));
    expect(patches.length).toBe(
      report.requests.filter((r) => r.method === "PATCH" && !r.path.includes("ext_0000")).length,
    );
    expect(report.requests.filter((r) => r.method === "PATCH").length).toBeGreaterThan(
      report.results.filter((r) => r.exchange?.request.method === "PATCH").length,
    );
  });

  test("SIGINT midway: the command deletes the scratch extension, then exits 130", async () => {
    server = startDifferingServer(emulator.url, {
      holdOn: (method, path) => method === "GET" && path.endsWith("/installs") && !path.includes("ext_0000"),
    });
    const proc = Bun.spawn([extBinary(), "conformance", "--target", server.url], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", EXT_API_KEY: emulator.apiKey },
      stdout: "pipe",
      stderr: "pipe",
    });
    await server.held;
    expect(await scratchLeft()).toHaveLength(1);
    proc.kill("SIGINT");
    const [stdout, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    server.release();
    expect(code).toBe(130);
    expect(stdout).toContain("interrupted: the run stopped early");
    expect(stdout).toMatch(/cleanup: scratch extension ext_\w+ deleted/);
    expect(await scratchLeft()).toEqual([]);
    // Nothing after the interrupted request but the cleanup's DELETE and list (and, on the cleanup's new
    // connection, the challenge that holds the target to its first answer).
    const after = server.seen.slice(server.seen.findIndex((s) => s.endsWith("/installs")) + 1);
    expect(after.filter((s) => s !== "GET /healthz")).toEqual([
      expect.stringMatching(/^DELETE \/developer\/v1\/extensions\/ext_/),
      "GET /developer/v1/extensions",
    ]);
  }, 30_000);
});
