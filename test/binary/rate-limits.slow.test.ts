/**
 * The compiled CLI meeting the emulator's rate limits (on, as `ext serve` starts by default): a 429 whose
 * wait is past the command's bound is shown at once with how to turn limits off, never waited out in
 * silence; `ext deploy` says how long it waits in all, and `--max-wait` / EXT_MAX_WAIT bound it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { adminFetch, BUILD_TIMEOUT_MS, type Built, buildBinary, run, type ServedBinary, serve } from "./helpers";

const DEMO_KEY = "ext_demo_0123456789abcdefghijklmnopqrstuv";
let built: Built;
let server: ServedBinary;
let cwd: string;

beforeAll(async () => {
  built = buildBinary();
  cwd = mkdtempSync(join(built.work, "rate-"));
  server = await serve(built.bin, ["--memory", "--seed", "demo"], cwd);
}, BUILD_TIMEOUT_MS);
afterAll(async () => {
  await server?.stop();
  built?.cleanup();
});

const ext = (args: string[], env: Record<string, string> = {}) =>
  run(built.bin, args, { cwd, env: { EXT_BASE_URL: server.baseUrl, EXT_API_KEY: DEMO_KEY, ...env } });

const fault = async (rule: Record<string, unknown>) => {
  const res = await adminFetch(server, "/faults", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(rule),
  });
  expect(res.status).toBeLessThan(300);
};

function extensionFolder(): string {
  const dir = mkdtempSync(join(cwd, "ext-"));
  mkdirSync(join(dir, "sounds"));
  writeFileSync(join(dir, "sounds/a.mp3"), Buffer.from("ID3\x03\x00\x00\x00\x00\x00\x00rate-limit-sound"));
  writeFileSync(join(dir, "manifest.json"), JSON.stringify({ sounds: [{ name: "a", file: "sounds/a.mp3" }] }));
  return dir;
}

describe("a 429 from the CLI", () => {
  test("the 11th create in an hour fails at once (its wait is past the bound), saying how to turn limits off", async () => {
    for (let i = 0; i < 10; i++) expect((await ext(["extensions", "create", "--name", `Rate ${i}`])).code).toBe(0);
    const started = performance.now();
    const r = await ext(["extensions", "create", "--name", "Rate 11"]);
    expect(r.code).toBe(1);
    // Not waited out: the hour's window has ~3600 s left, the default bound is 60 s.
    expect(performance.now() - started).toBeLessThan(30_000);
    expect(r.stderr).toMatch(/error: 429 rate_limited: Too many requests for POST \/extensions; retry after \d+ s\./);
    expect(r.stderr).toContain("--no-rate-limits");
    expect(r.stderr).toContain("EXT_RATE_LIMITS=false");
    expect(r.stderr).toContain("advanceSeconds");
    expect(r.stderr).toMatch(
      /not retried: waiting \d+ s would pass the bound of 60 s of waiting in all \(--max-wait or EXT_MAX_WAIT/,
    );
  });

  test("a short wait within the bound is retried, and the note says how long it may wait in all", async () => {
    await fault({ method: "GET", path: "/extensions", status: 429, times: 1 });
    const r = await ext(["extensions", "list"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      "rate limited; retrying in 1 s (1 s of waiting so far, at most 60 s in all: --max-wait or EXT_MAX_WAIT)",
    );
  });

  test("EXT_MAX_WAIT=0 never waits; a value that is not a number is a usage error", async () => {
    await fault({ method: "GET", path: "/extensions", status: 429, times: 1 });
    const r = await ext(["extensions", "list"], { EXT_MAX_WAIT: "0" });
    expect(r.code).toBe(1);
    expect(r.stderr).not.toContain("retrying");
    expect(r.stderr).toContain("not retried: waiting 1 s would pass the bound of 0 s");
    await adminFetch(server, "/faults", { method: "DELETE" });
    const bad = await ext(["extensions", "list"], { EXT_MAX_WAIT: "soon" });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      'EXT_MAX_WAIT must be a whole number of seconds (0: never wait out a 429; got "soon")',
    );
  });
});

describe("ext deploy", () => {
  test("--max-wait bounds the waits of the whole deploy; the retry note says the bound", async () => {
    const id = JSON.parse((await ext(["extensions", "list", "--json"])).stdout).extensions[0].id as string;
    await fault({ method: "POST", path: `/extensions/${id}/versions`, status: 429, times: 1 });
    const refused = await ext([
      "deploy",
      extensionFolder(),
      "--extension",
      id,
      "--version",
      "1.0.0",
      "--max-wait",
      "0",
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("not retried: waiting 1 s would pass the bound of 0 s");
    await adminFetch(server, "/faults", { method: "DELETE" });

    await fault({ method: "POST", path: `/extensions/${id}/versions`, status: 429, times: 1 });
    const retried = await ext([
      "deploy",
      extensionFolder(),
      "--extension",
      id,
      "--version",
      "1.0.1",
      "--max-wait",
      "5",
    ]);
    expect(retried.code).toBe(0);
    expect(retried.stderr).toContain("rate limited; retrying in 1 s (1 s of waiting so far, at most 5 s in all");

    const bad = await ext(["deploy", extensionFolder(), "--extension", id, "--max-wait", "-1"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--max-wait must be a whole number of seconds");
  });
});
