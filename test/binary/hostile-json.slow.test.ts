/**
 * Hostile JSON against the compiled binary, measured from /proc: peak RSS growth (VmHWM, reset through
 * /proc/PID/clear_refs before each measure) stays under 64 MB for 40 KB of nested brackets and for a 1 MiB
 * body at the nesting bound that fails its schema, while a concurrent GET is answered; a 100 MB control-plane
 * body is a 413 with no growth; a DNS-rebinding Host is refused; a hostile export (100 MB of `[` in an
 * archive, a deep fixture.json, a link to /dev/zero) is refused at once.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tarOf } from "../helpers/tar-entries";
import { BUILD_TIMEOUT_MS, type Built, buildBinary, run, type ServedBinary, serve } from "./helpers";

const KEY = "ext_test_key_hostile_json_0123456789abc";
const MB = 1024;
let built: Built;
let server: ServedBinary;

beforeAll(async () => {
  built = buildBinary();
  writeFileSync(
    join(built.work, "fixture.json"),
    JSON.stringify({
      accounts: [
        {
          id: "acc_json",
          name: "Json",
          apiKeys: [{ name: "ci", key: KEY, scopes: ["*"] }],
          extensions: [{ id: "ext_json", name: "Json" }],
        },
      ],
    }),
  );
  server = await serve(built.bin, ["--memory", "--seed", "fixture.json", "--no-rate-limits"], built.work);
}, BUILD_TIMEOUT_MS);
afterAll(async () => {
  await server?.stop();
  built?.cleanup();
});

const statusKb = (field: string) =>
  Number(readFileSync(`/proc/${server.pid}/status`, "utf8").match(new RegExp(`^${field}:\\s+(\\d+)`, "m"))![1]);

/** RSS now, with the peak (VmHWM) reset to it. */
function resetPeak(): number {
  writeFileSync(`/proc/${server.pid}/clear_refs`, "5");
  return statusKb("VmRSS");
}
const growthMb = (before: number) => Math.round((statusKb("VmHWM") - before) / MB);

const auth = { authorization: `Bearer ${KEY}`, "content-type": "application/json" };
async function send(method: string, url: string, body?: string | Uint8Array, headers: Record<string, string> = auth) {
  const res = await fetch(url, { method, headers, body });
  const json = (await res.json()) as { error?: { code: string; details?: { message: string }[] } };
  return { status: res.status, code: json.error?.code, detail: json.error?.details?.[0]?.message };
}
const putSecret = (extensionId: string, body: string) =>
  send("PUT", `${server.baseUrl}/extensions/${extensionId}/secrets/A`, body);

describe("nested JSON on the compiled binary", () => {
  test("40 KB of nested [ to PUT secrets of an unknown id: 422, peak RSS growth under 64 MB, a concurrent GET answered", async () => {
    await putSecret("ext_json", '{"value":5}'); // the first request compiles the route: not measured
    const nested = "[".repeat(20_000) + "]".repeat(20_000);
    const before = resetPeak();
    const [list, ...refused] = await Promise.all([
      send("GET", `${server.baseUrl}/extensions`),
      ...Array.from({ length: 4 }, () => putSecret("ext_00000000000000000000000000", nested)),
    ]);
    expect(list.status).toBe(200);
    expect(refused).toEqual(
      refused.map(() => ({
        status: 422,
        code: "validation_error",
        detail: "the JSON body nests deeper than 32 levels",
      })),
    );
    expect(growthMb(before)).toBeLessThan(64);
  }, 60_000);

  test("1 MiB at the nesting bound, failing its schema: 422, peak RSS growth under 64 MB (the value is never formatted)", async () => {
    // 30 levels inside the body object, around half a million elements.
    const inner = "0,".repeat(500_000);
    const body = `{"value":${"[".repeat(30)}${inner}0${"]".repeat(30)}}`;
    expect(body.length).toBeLessThan(1024 * 1024);
    await putSecret("ext_json", body); // not measured: the first large body grows the heap once
    const before = resetPeak();
    const [list, ...refused] = await Promise.all([
      send("GET", `${server.baseUrl}/extensions`),
      ...Array.from({ length: 4 }, () => putSecret("ext_json", body)),
    ]);
    expect(list.status).toBe(200);
    expect(refused.map((r) => r.status)).toEqual([422, 422, 422, 422]);
    expect(growthMb(before)).toBeLessThan(64);
  }, 60_000);
});

describe("control-plane bodies on the compiled binary", () => {
  test("a 100 MB JSON body to POST /_emulator/clock is a 413 with no growth", async () => {
    const body = new Uint8Array(100 * 1024 * 1024).fill(0x20);
    const before = resetPeak();
    const answer = await send("POST", `${server.adminUrl}/clock`, body, {
      "content-type": "application/json",
      authorization: `Bearer ${server.adminToken}`,
    });
    expect(answer).toMatchObject({ status: 413, code: "payload_too_large" });
    expect(growthMb(before)).toBeLessThan(16);
  }, 60_000);
});

describe("DNS rebinding on the compiled binary", () => {
  test("the developer API refuses a Host that is not a loopback name, even with a valid key", async () => {
    const answer = await send("GET", `${server.baseUrl}/extensions`, undefined, {
      ...auth,
      host: "rebind.example:4780",
    });
    expect(answer).toMatchObject({ status: 403, code: "forbidden" });
    expect((await send("GET", `${server.baseUrl}/extensions`)).status).toBe(200);
  });
});

describe("hostile exports on the compiled binary", () => {
  const tarOfFixture = (bytes: Buffer) => tarOf([["fixture.json", bytes]]);

  test("a 100 MB tar of [ to POST /_emulator/seed, and a 20 MB one under the size cap: 422 at once, peak RSS growth under 64 MB", async () => {
    for (const size of [100, 20]) {
      const archive = await tarOfFixture(Buffer.alloc(size * 1024 * 1024, "["));
      const before = resetPeak();
      const answer = await send("POST", `${server.adminUrl}/seed`, archive, {
        "content-type": "application/x-tar",
        authorization: `Bearer ${server.adminToken}`,
      });
      expect(answer).toMatchObject({
        status: 422,
        code: "validation_error",
        detail: expect.stringMatching(/^the uploaded archive: fixture.json (is larger than|nests deeper than)/),
      });
      expect(growthMb(before)).toBeLessThan(64);
    }
    expect((await send("GET", `${server.baseUrl}/extensions`)).status).toBe(200);
  }, 60_000);

  test("ext serve --seed DIR with a 20 MB nested fixture.json: refused, naming the file", async () => {
    const dir = join(built.work, "deep-export");
    mkdirSync(dir);
    writeFileSync(join(dir, "fixture.json"), Buffer.alloc(20 * 1024 * 1024, "["));
    const result = await run(built.bin, ["serve", "--memory", "--port", "0", "--seed", "deep-export"], {
      cwd: built.work,
    });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("deep-export/fixture.json: it nests deeper than 32 levels");
  }, 60_000);

  test("ext seed DIR whose fixture.json is a link to /dev/zero: refused without reading it", async () => {
    const dir = join(built.work, "zero-export");
    mkdirSync(dir);
    symlinkSync("/dev/zero", join(dir, "fixture.json"));
    const result = await run(built.bin, ["seed", "zero-export", "--data-dir", "seed-data"], { cwd: built.work });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("zero-export/fixture.json: it is a symbolic link (links are not followed)");
  }, 60_000);
});

describe("hostile local files on the compiled binary", () => {
  test("ext deploy DIR whose manifest.json is a link to /dev/zero: refused before anything is read or sent", async () => {
    const dir = join(built.work, "zero-manifest");
    mkdirSync(dir);
    symlinkSync("/dev/zero", join(dir, "manifest.json"));
    const result = await run(
      built.bin,
      ["deploy", "zero-manifest", "--extension", "ext_json", "--version", "9.9.9", "--target", server.baseUrl],
      { cwd: built.work, env: { EXT_API_KEY: KEY } },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("zero-manifest/manifest.json is a symbolic link (links are not followed)");
  }, 60_000);
});
