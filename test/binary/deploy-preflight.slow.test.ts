/**
 * `ext deploy` asks the server, before any upload (and on a dry run), what it would refuse or do: a label
 * already taken (the next free one suggested), the version cap, a disabled extension. From the compiled
 * binary against the compiled binary's `serve`; the request log shows no upload was attempted.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { nextFreeLabel } from "../../tools/deploy/preflight";
import { adminFetch, BUILD_TIMEOUT_MS, type Built, buildBinary, run, type ServedBinary, serve } from "./helpers";

const KEY = "ext_preflight_key_0123456789abcdefgh";
const FIXTURE = {
  accounts: [
    {
      id: "acc_pre",
      name: "Preflight",
      apiKeys: [{ name: "ci", key: KEY, scopes: ["*"] }],
      extensions: [
        { id: "ext_taken", name: "Taken", versions: [{ version: "1.0.0" }, { version: "1.0.1" }] },
        {
          id: "ext_capped",
          name: "Capped",
          overrides: { max_versions_per_extension: 2 },
          versions: [{ version: "0.1.0" }, { version: "0.2.0" }],
        },
        { id: "ext_off", name: "Off", status: "disabled" },
      ],
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
  writeFileSync(join(dir, "manifest.json"), JSON.stringify({ version }));
  return dir;
}

const deploy = (extensionId: string, version: string, extra: string[] = []) =>
  run(
    built.bin,
    [
      "deploy",
      extensionDir(version),
      "--extension",
      extensionId,
      "--api-key",
      KEY,
      "--target",
      server.baseUrl,
      ...extra,
    ],
    { cwd: built.work },
  );

async function uploadsLogged(): Promise<number> {
  const res = await adminFetch(server, `/requests?limit=500`);
  const { requests } = (await res.json()) as { requests: { method: string; path: string }[] };
  return requests.filter((r) => r.method === "POST" && r.path.endsWith("/versions")).length;
}

describe("before the upload", () => {
  test("a label already taken is refused by the dry run and by the deploy, naming the next free label; nothing is sent", async () => {
    const before = await uploadsLogged();
    const said =
      "version 1.0.0 already exists for ext_taken (the upload would be refused: 409 version_exists); the next free label is 1.0.2: --version 1.0.2";
    const dry = await deploy("ext_taken", "1.0.0", ["--dry-run"]);
    expect(dry.code).toBe(2);
    expect(dry.stdout).toContain("dry run: ext_taken 1.0.0 would be refused");
    expect(dry.stderr).toContain(said);
    const real = await deploy("ext_taken", "1.0.0", ["--json"]);
    expect(real.code).toBe(2);
    expect(real.stderr).toContain(said);
    expect(JSON.parse(real.stdout).problems).toEqual([
      { field: "version", code: "version_exists", suggestion: "1.0.2", message: said },
    ]);
    expect(await uploadsLogged()).toBe(before);
    // The suggested label goes through.
    expect((await deploy("ext_taken", "1.0.2")).code).toBe(0);
  });

  test("at the version cap: a warning naming the version the server will archive", async () => {
    const dry = await deploy("ext_capped", "0.3.0", ["--dry-run"]);
    expect(dry.code).toBe(0);
    expect(dry.stderr).toMatch(
      /warning: ext_capped has 2 versions, its max_versions_per_extension limit \(2, source: extension_override\): this one makes the server archive the oldest, ver_[0-9a-z]+ \(0\.1\.0\)/,
    );
  });

  test("a disabled extension: a warning that it stays disabled", async () => {
    const dry = await deploy("ext_off", "1.0.0", ["--dry-run"]);
    expect(dry.code).toBe(0);
    expect(dry.stderr).toContain(
      "warning: ext_off is disabled by a platform admin: the version can be submitted and reviewed, but the extension stays disabled until an admin enables it",
    );
  });
});

test("the next free label counts the last number up", () => {
  expect(nextFreeLabel("1.0.0", new Set(["1.0.0"]))).toBe("1.0.1");
  expect(nextFreeLabel("1.0.0", new Set(["1.0.0", "1.0.1"]))).toBe("1.0.2");
  expect(nextFreeLabel("2.0.0-beta", new Set(["2.0.0-beta"]))).toBe("2.0.1-beta");
  expect(nextFreeLabel("v9", new Set(["v9"]))).toBe("v10");
  expect(nextFreeLabel("nightly", new Set(["nightly"]))).toBe("nightly.1");
});
