/**
 * `ext deploy` as a user runs it: the compiled binary, from a temp directory with no node_modules, against
 * the compiled binary's `serve`, with extension directories made by the test.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { waitFor } from "../helpers/wait-for";
import {
  adminFetch,
  BUILD_TIMEOUT_MS,
  type Built,
  buildBinary,
  cleanEnv,
  goneSoon,
  run,
  type ServedBinary,
  serve,
} from "./helpers";

const KEY = "ext_deploy_test_key_0123456789abcdef";
const BIG_KEY = "ext_deploy_big_key_0123456789abcdefg";
const TIGHT_TOTAL = 64 * 1024;
const TIGHT_ASSETS = 16 * 1024;
const FIXTURE = {
  accounts: [
    {
      id: "acc_dev",
      name: "Dev",
      apiKeys: [{ name: "ci", key: KEY, scopes: ["*"] }],
      extensions: [
        { id: "ext_plain", name: "Plain Board" },
        { id: "ext_slow", name: "Slow Build", overrides: { build_time_seconds: 1 } },
        // Overrides may lower a limit too: the 50 MB bundle and 20 MB assets limits, checked with kilobytes.
        { id: "ext_tight_total", name: "Tight Total", overrides: { bundle_total_bytes: TIGHT_TOTAL } },
        { id: "ext_tight_assets", name: "Tight Assets", overrides: { static_assets_bytes: TIGHT_ASSETS } },
      ],
    },
    {
      id: "acc_big",
      name: "Big",
      apiKeys: [{ name: "ci", key: BIG_KEY, scopes: ["*"] }],
      overrides: { max_sounds_per_extension: 80 },
      extensions: [{ id: "ext_big", name: "Big Board" }],
    },
  ],
};

let built: Built;
let server: ServedBinary;
let work: string;

beforeAll(async () => {
  built = buildBinary();
  work = built.work;
  writeFileSync(join(work, "fixture.json"), JSON.stringify(FIXTURE));
  server = await serve(built.bin, ["--memory", "--seed", "fixture.json", "--no-rate-limits"], work);
}, BUILD_TIMEOUT_MS);
afterAll(async () => {
  await server?.stop();
  built?.cleanup();
});

/** A compiled output directory: manifest.json plus `sounds` small MP3 files (and optional extra files). */
function extensionDir(
  opts: {
    sounds?: number;
    soundBytes?: number;
    extra?: Record<string, Uint8Array | string>;
    manifest?: Record<string, unknown>;
  } = {},
): string {
  const dir = mkdtempSync(join(work, "ext-"));
  mkdirSync(join(dir, "sounds"));
  const sounds = [];
  for (let i = 0; i < (opts.sounds ?? 1); i++) {
    const file = `sounds/s${i}.mp3`;
    // "ID3" is the MP3 magic the server checks; random bytes so gzip cannot shrink a big one to nothing.
    writeFileSync(
      join(dir, file),
      Buffer.concat([Buffer.from("ID3\x03\x00\x00\x00\x00\x00\x00"), randomBytes(opts.soundBytes ?? 64)]),
    );
    sounds.push({ name: `s${i}`, file });
  }
  for (const [path, content] of Object.entries(opts.extra ?? {})) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  writeFileSync(join(dir, "manifest.json"), JSON.stringify({ sounds, ...opts.manifest }));
  return dir;
}

const deploy = (args: string[], env: Record<string, string> = {}) =>
  run(built.bin, ["deploy", ...args], { cwd: work, env });
const target = () => ["--target", server.baseUrl];

async function versionsOf(extensionId: string, key = KEY): Promise<{ id: string; version: string; status: string }[]> {
  const res = await fetch(`${server.baseUrl}/extensions/${extensionId}/versions`, {
    headers: { authorization: `Bearer ${key}` },
  });
  return ((await res.json()) as { versions: { id: string; version: string; status: string }[] }).versions;
}

async function uploadsLogged(extensionId: string): Promise<number> {
  const res = await adminFetch(server, `/requests?limit=500`);
  const { requests } = (await res.json()) as { requests: { method: string; path: string }[] };
  return requests.filter((r) => r.method === "POST" && r.path.endsWith(`/extensions/${extensionId}/versions`)).length;
}

describe("ext deploy DIR --target URL", () => {
  test("a real directory ends up as a pending version in the list", async () => {
    const r = await deploy([
      extensionDir({ sounds: 3 }),
      "--extension",
      "ext_plain",
      "--version",
      "1.0.0",
      "--changelog",
      "first",
      "--api-key",
      KEY,
      ...target(),
    ]);
    expect(r.stderr).not.toContain("error");
    expect(r.code).toBe(0);
    const id = /version (ver_\S+) \(1\.0\.0\) of ext_plain: pending/.exec(r.stdout)?.[1];
    expect(id).toBeDefined();
    expect((await versionsOf("ext_plain")).find((v) => v.id === id)).toMatchObject({
      version: "1.0.0",
      status: "pending",
      changelog: "first",
    });
  });

  test("51 sounds stop before uploading with exit 2, naming the limit, its source and how to raise it", async () => {
    const before = await uploadsLogged("ext_plain");
    const r = await deploy([
      extensionDir({ sounds: 51 }),
      "--extension",
      "ext_plain",
      "--version",
      "51.0.0",
      "--api-key",
      KEY,
      ...target(),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("max_sounds_per_extension");
    expect(r.stderr).toContain("51 sounds for this extension; the limit is 50");
    expect(r.stderr).toContain("platform_default");
    expect(r.stderr).toContain("limit increase request");
    expect(await uploadsLogged("ext_plain")).toBe(before);
    expect((await versionsOf("ext_plain")).some((v) => v.version === "51.0.0")).toBe(false);
  });

  test("with a developer override of 80, 51 sounds deploy", async () => {
    const r = await deploy([
      extensionDir({ sounds: 51 }),
      "--extension",
      "ext_big",
      "--version",
      "51.0.0",
      "--api-key",
      BIG_KEY,
      ...target(),
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("sounds: 51 of 80 (developer_override)");
    expect((await versionsOf("ext_big", BIG_KEY)).map((v) => v.version)).toContain("51.0.0");
  });

  test("a 6 MB sound prints a warning and still deploys", async () => {
    const r = await deploy([
      extensionDir({ sounds: 1, soundBytes: 6 * 1024 * 1024 }),
      "--extension",
      "ext_plain",
      "--version",
      "6mb",
      "--api-key",
      KEY,
      ...target(),
    ]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/warning: sounds\/s0\.mp3: 6\.0 MB is over the 5\.0 MB sound warning threshold/);
  });

  test("--dry-run checks and packs but uploads nothing (request log)", async () => {
    const before = await uploadsLogged("ext_plain");
    const r = await deploy([
      extensionDir(),
      "--extension",
      "ext_plain",
      "--version",
      "dry",
      "--api-key",
      KEY,
      ...target(),
      "--dry-run",
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("nothing was uploaded");
    expect(await uploadsLogged("ext_plain")).toBe(before);
    expect((await versionsOf("ext_plain")).some((v) => v.version === "dry")).toBe(false);
  });

  test.each([
    ["a sound over 10 MB", { sounds: 1, soundBytes: 11 * 1024 * 1024 }, "over the sound file limit"],
    [
      "an unknown sound format",
      { sounds: 0, extra: { "sounds/x.txt": "hello" }, manifest: { sounds: [{ name: "x", file: "sounds/x.txt" }] } },
      "not a supported sound format",
    ],
    ["a component over 5 MB gzipped", { extra: { "layer/blob.bin": randomBytes(5 * 1024 * 1024 + 100_000) } }, "layer"],
    [
      "too many allowHosts",
      { manifest: { allowHosts: Array.from({ length: 21 }, (_, i) => `h${i}.example.com`) } },
      "max_allow_hosts",
    ],
    [
      "too many actions",
      { manifest: { actions: Array.from({ length: 51 }, (_, i) => ({ name: `a${i}` })) } },
      "max_actions_per_extension",
    ],
  ])("%s stops with exit 2 before uploading", async (_name, opts, mention) => {
    const before = await uploadsLogged("ext_plain");
    const r = await deploy([
      extensionDir(opts as Parameters<typeof extensionDir>[0]),
      "--extension",
      "ext_plain",
      "--version",
      "bad",
      "--api-key",
      KEY,
      ...target(),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(mention as string);
    expect(await uploadsLogged("ext_plain")).toBe(before);
  });

  // The same checks as the 50 MB total and the 20 MB of assets, at a size a test can afford: each extension
  // has its limit lowered by an override, and a bundle half that size deploys, so the refusal is that limit's.
  test.each([
    [
      "the archive over bundle_total_bytes",
      "ext_tight_total",
      "bundle_total_bytes",
      TIGHT_TOTAL,
      (bytes: number) => ({ sounds: 1, soundBytes: bytes }),
    ],
    [
      "assets/ over static_assets_bytes",
      "ext_tight_assets",
      "static_assets_bytes",
      TIGHT_ASSETS,
      (bytes: number) => ({ extra: { "assets/img.bin": randomBytes(bytes) } }),
    ],
  ] as const)(
    "%s stops with exit 2 before uploading, naming the limit and its override",
    async (_name, extensionId, limit, max, make) => {
      const over = await deploy([
        extensionDir(make(max + 1024)),
        "--extension",
        extensionId,
        "--version",
        "over",
        "--api-key",
        KEY,
        ...target(),
        "--json",
      ]);
      expect(over.code).toBe(2);
      expect(over.stderr).toContain("nothing was uploaded");
      expect(over.stderr).toContain(limit);
      const { ok, problems } = JSON.parse(over.stdout) as {
        ok: boolean;
        problems: { limit?: string; max?: number; current?: number; source?: string; message: string }[];
      };
      expect(ok).toBe(false);
      expect(problems).toEqual([
        expect.objectContaining({
          limit,
          max,
          source: "extension_override",
          message: expect.stringContaining(`The ${limit} limit`),
        }),
      ]);
      expect(problems[0]!.current).toBeGreaterThan(max);
      expect(await uploadsLogged(extensionId)).toBe(0);
      expect(await versionsOf(extensionId)).toEqual([]);

      const under = await deploy([
        extensionDir(make(max / 2)),
        "--extension",
        extensionId,
        "--version",
        "under",
        "--api-key",
        KEY,
        ...target(),
      ]);
      expect(under.stderr).not.toContain("error");
      expect(under.code).toBe(0);
      expect((await versionsOf(extensionId)).map((v) => v.version)).toEqual(["under"]);
    },
  );

  test("id and label from the manifest, key and URL from the environment (--target local)", async () => {
    const dir = extensionDir({ manifest: { extensionId: "ext_plain", version: "from-manifest" } });
    const r = await deploy([dir, "--json"], { EXT_API_KEY: KEY, EXT_LOCAL_URL: server.baseUrl });
    expect(r.code).toBe(0);
    const result = JSON.parse(r.stdout);
    expect(result).toMatchObject({
      ok: true,
      dryRun: false,
      extensionId: "ext_plain",
      version: "from-manifest",
      status: "pending",
    });
    expect(result.versionId).toMatch(/^ver_/);
    expect(result.bundle.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  test("EXT_EXTENSION_ID names the extension", async () => {
    const r = await deploy([extensionDir(), "--version", "env-id", ...target()], {
      EXT_API_KEY: KEY,
      EXT_EXTENSION_ID: "ext_plain",
    });
    expect(r.code).toBe(0);
    expect((await versionsOf("ext_plain")).map((v) => v.version)).toContain("env-id");
  });

  test("the server's error code and message are shown as they are (exit 1)", async () => {
    const dir = extensionDir();
    expect(
      (await deploy([dir, "--extension", "ext_plain", "--version", "dup", "--api-key", KEY, ...target()])).code,
    ).toBe(0);
    // A label already taken is known before the upload (exit 2), with the code the server would answer.
    const r = await deploy([dir, "--extension", "ext_plain", "--version", "dup", "--api-key", KEY, ...target()]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("409 version_exists");
    const other = await deploy([dir, "--extension", "ext_nope", "--version", "x", "--api-key", KEY, ...target()]);
    expect(other.code).toBe(1);
    expect(other.stderr).toContain("404 extension_not_found");
  });

  test("a 429 is retried after Retry-After", async () => {
    const fault = await adminFetch(server, `/faults`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ method: "POST", path: "/extensions/ext_plain/versions", status: 429, times: 1 }),
    });
    expect(fault.status).toBeLessThan(300);
    const r = await deploy([
      extensionDir(),
      "--extension",
      "ext_plain",
      "--version",
      "after-429",
      "--api-key",
      KEY,
      ...target(),
    ]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("rate limited; retrying");
    expect((await versionsOf("ext_plain")).map((v) => v.version)).toContain("after-429");
  });

  test("--wait returns once review approves the version", async () => {
    const proc = Bun.spawn(
      [
        built.bin,
        "deploy",
        extensionDir(),
        "--extension",
        "ext_plain",
        "--version",
        "waited",
        "--api-key",
        KEY,
        ...target(),
        "--wait",
        "--timeout",
        "30",
      ],
      { cwd: work, env: cleanEnv(), stdout: "pipe", stderr: "pipe" },
    );
    const version = await waitFor(
      async () => (await versionsOf("ext_plain")).find((v) => v.version === "waited"),
      "the deployed version",
    );
    expect((await adminFetch(server, `/versions/${version.id}/approve`, { method: "POST" })).status).toBe(200);
    expect(await proc.exited).toBe(0);
    expect(await new Response(proc.stdout).text()).toContain(`version ${version.id} (waited) of ext_plain: approved`);
  });

  test("--wait: a rejected version is exit 1, and --json prints {ok:false,…} on stdout", async () => {
    const proc = Bun.spawn(
      [
        built.bin,
        "deploy",
        extensionDir(),
        "--extension",
        "ext_plain",
        "--version",
        "to-reject",
        "--api-key",
        KEY,
        ...target(),
        "--wait",
        "--timeout",
        "30",
        "--json",
      ],
      { cwd: work, env: cleanEnv(), stdout: "pipe", stderr: "pipe" },
    );
    const version = await waitFor(
      async () => (await versionsOf("ext_plain")).find((v) => v.version === "to-reject"),
      "the deployed version",
    );
    const rejected = await adminFetch(server, `/versions/${version.id}/reject`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ reason: "Not this one, thanks." }),
    });
    expect(rejected.status).toBe(200);
    expect(await proc.exited).toBe(1);
    const stdout = await new Response(proc.stdout).text();
    expect(stdout.trim().split("\n")).toHaveLength(1);
    expect(JSON.parse(stdout)).toMatchObject({
      ok: false,
      error: { message: `version ${version.id} was rejected by review: Not this one, thanks.` },
      versionId: version.id,
      status: "rejected",
    });
    expect(await new Response(proc.stderr).text()).toContain("rejected by review");
  });

  test("--wait --timeout is kept when the server is slow: a poll still unanswered a second past the deadline is cut (exit 1)", async () => {
    // The first poll of the versions list takes 60 s: counting polls instead of reading a clock, --timeout 1
    // would end only after that poll answered, far past this test's own 30 s limit. The deploy's check before
    // the upload reads the list first (it gives up after 3 s and goes on): the rule delays both. About 5 s of
    // the test is those waits; the limit leaves a loaded machine room for the rest.
    const fault = await adminFetch(server, `/faults`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ method: "GET", path: "/extensions/ext_plain/versions", latencyMs: 60_000, times: 2 }),
    });
    const faultId = ((await fault.json()) as { fault: { id: string } }).fault.id;
    try {
      const r = await deploy([
        extensionDir(),
        "--extension",
        "ext_plain",
        "--version",
        "slow-review",
        "--api-key",
        KEY,
        ...target(),
        "--wait",
        "--timeout",
        "1",
        "--json",
      ]);
      expect(r.code).toBe(1);
      expect(JSON.parse(r.stdout)).toMatchObject({
        ok: false,
        error: { message: expect.stringMatching(/^version ver_\S+ is still pending after 1 s \(--timeout\)$/) },
      });
      // The check before the upload and the one poll it made are the two the rule delayed.
      const rules = (
        (await (await adminFetch(server, `/faults`)).json()) as { faults: { id: string; fired: number }[] }
      ).faults;
      expect(rules.find((f) => f.id === faultId)?.fired).toBe(2);
    } finally {
      await adminFetch(server, `/faults/${faultId}`, { method: "DELETE" });
    }
  }, 30_000);

  test("--build runs first; a build past build_time_seconds is stopped with exit 1", async () => {
    const dir = mkdtempSync(join(work, "src-"));
    const out = join(dir, "out");
    const build = `mkdir -p ${out}/sounds && printf 'ID3abc' > ${out}/sounds/a.mp3 && echo '{"sounds":[{"name":"a","file":"sounds/a.mp3"}]}' > ${out}/manifest.json`;
    const ok = await deploy([
      out,
      "--extension",
      "ext_plain",
      "--version",
      "built",
      "--api-key",
      KEY,
      ...target(),
      "--build",
      build,
    ]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain("(built) of ext_plain: pending");
    // The build starts a process of its own: stopping the build must stop it too (the whole process group).
    const pidFile = join(dir, "sleep.pid");
    const slow = await deploy([
      out,
      "--extension",
      "ext_slow",
      "--version",
      "slow",
      "--api-key",
      KEY,
      ...target(),
      "--build",
      `sleep 30 & echo $! > ${pidFile}; wait`,
    ]);
    expect(slow.code).toBe(1);
    expect(slow.stderr).toContain("build-time limit of 1 s (build_time_seconds)");
    // Killed with its group (a survivor would live 30 s).
    expect(await goneSoon(Number(readFileSync(pidFile, "utf8")))).toBe(true);
  });

  test("the target may be the server's root URL; with no key, the emulator's own key for its first account is used and named", async () => {
    // The server's first account: both were made at the same instant, so by id, acc_big.
    // A server named by URL: its control plane, which hands out the key, takes the token the user gives.
    const r = await deploy(
      [extensionDir(), "--extension", "ext_big", "--version", "root-url", "--target", server.url],
      {
        EXT_ADMIN_TOKEN: server.adminToken,
      },
    );
    expect(r.stderr).toContain(`using account acc_big (Big) on ${server.url}`);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/version ver_\w+ \(root-url\) of ext_big: pending/);
    const bad = await deploy([extensionDir(), "--extension", "ext_plain", "--version", "u", "--target", "not a url"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("is not a URL");
  });
});
