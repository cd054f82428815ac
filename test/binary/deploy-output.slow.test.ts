/**
 * What `ext deploy` packs and prints, seen where the user sees it: the compiled binary against the compiled
 * binary's `serve` on a real data dir, the uploaded bundle listed from the blob store with GNU tar.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { waitFor } from "../helpers/wait-for";
import {
  adminFetch,
  BUILD_TIMEOUT_MS,
  type Built,
  buildBinary,
  cleanEnv,
  run,
  type ServedBinary,
  serve,
} from "./helpers";

const KEY = "ext_output_test_key_0123456789abcdef";
const FIXTURE = {
  accounts: [
    {
      id: "acc_dev",
      name: "Dev",
      apiKeys: [{ name: "ci", key: KEY, scopes: ["*"] }],
      extensions: [
        { id: "ext_plain", name: "Plain Board" },
        { id: "ext_no_sounds", name: "No Sounds", overrides: { max_sounds_per_extension: 0 } },
      ],
    },
  ],
};

let built: Built;
let server: ServedBinary;
let work: string;
let dataDir: string;

beforeAll(async () => {
  built = buildBinary();
  work = built.work;
  dataDir = join(work, "data");
  writeFileSync(join(work, "fixture.json"), JSON.stringify(FIXTURE));
  server = await serve(built.bin, ["--data-dir", dataDir, "--seed", "fixture.json", "--no-rate-limits"], work);
}, BUILD_TIMEOUT_MS);
afterAll(async () => {
  await server?.stop();
  built?.cleanup();
});

/** Writes `files` (path → content) into a fresh directory under the work dir. */
function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(work, "ext-"));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}

const MP3 = "ID3\x03\x00\x00\x00\x00\x00\x00abc";
const MANIFEST = JSON.stringify({ sounds: [{ name: "ding", file: "sounds/ding.mp3" }] });
/** A developer's output directory with the things that must never ship, and an .extignore. */
const DEVELOPER_TREE = {
  "manifest.json": MANIFEST,
  "layer/index.js": "export const layer = 1;\n",
  "layer/index.js.map": "{}",
  "sounds/ding.mp3": MP3,
  ".env": "SECRET=do-not-ship",
  ".git/config": "[core]\n",
  ".git/HEAD": "ref: refs/heads/main\n",
  ".DS_Store": "litter",
  "assets/.DS_Store": "litter",
  ".well-known/assetlinks.json": "[]",
  "notes/todo.md": "later",
  ".extignore": "# local only\n*.map\nnotes/\n!.well-known/\n",
};
const EXPECTED_FILES = [".well-known/assetlinks.json", "layer/index.js", "manifest.json", "sounds/ding.mp3"];

const deploy = (args: string[]) =>
  run(built.bin, ["deploy", ...args, "--api-key", KEY, "--target", server.baseUrl], { cwd: work });

/** The uploaded bundle, found in the data dir's blob store by its SHA-256, listed by GNU tar: regular files and sizes. */
function uploadedFiles(sha256: string): { path: string; bytes: number }[] {
  const objects = join(dataDir, "blobs", "objects");
  const blob = readdirSync(objects).find(
    (f) =>
      createHash("sha256")
        .update(readFileSync(join(objects, f)))
        .digest("hex") === sha256,
  );
  expect(blob).toBeDefined();
  const listing = Bun.spawnSync(["tar", "--numeric-owner", "-tvzf", join(objects, blob!)], {
    stdout: "pipe",
    stderr: "pipe",
  });
  expect(listing.exitCode).toBe(0);
  // "-rw-r--r-- 0/0   24 2000-01-01 00:00 layer/index.js"
  return listing.stdout
    .toString()
    .trim()
    .split("\n")
    .filter((line) => line.startsWith("-"))
    .map((line) => {
      const [, bytes, path] = /^\S+\s+\S+\s+(\d+)\s+\S+\s+\S+\s+(.+)$/.exec(line)!;
      return { path: path!, bytes: Number(bytes) };
    });
}

describe("what ext deploy packs", () => {
  test("no .env, .git/ or .DS_Store; .extignore excludes and re-includes .well-known/; GNU tar lists exactly the dry run's files", async () => {
    const dir = tree(DEVELOPER_TREE);
    const dry = await deploy([dir, "--extension", "ext_plain", "--version", "packed-1", "--dry-run", "--json"]);
    expect(dry.code).toBe(0);
    const plan = JSON.parse(dry.stdout) as {
      files: { path: string; bytes: number }[];
      excluded: { path: string; rule: string }[];
      bundle: { sha256: string };
    };
    expect(plan.files.map((f) => f.path)).toEqual(EXPECTED_FILES);
    expect(plan.excluded).toEqual([
      { path: ".DS_Store", rule: "always (OS file): .DS_Store" },
      { path: ".env", rule: "default (looks like a secret): .env" },
      { path: ".extignore", rule: "default (dotfile): .*" },
      { path: ".git/", rule: "always (VCS folder): .git" },
      { path: "assets/.DS_Store", rule: "always (OS file): .DS_Store" },
      { path: "layer/index.js.map", rule: ".extignore line 2: *.map" },
      { path: "notes/", rule: ".extignore line 3: notes/" },
    ]);
    // The secret is named, with where it belongs instead, and its value is never printed.
    expect(dry.stderr).toContain("warning: left out a file that looks like a secret: .env");
    expect(dry.stderr).toContain("ext secrets set NAME");
    expect(dry.stdout + dry.stderr).not.toContain("do-not-ship");

    const real = await deploy([dir, "--extension", "ext_plain", "--version", "packed-1", "--json"]);
    expect(real.code).toBe(0);
    const result = JSON.parse(real.stdout) as { bundle: { sha256: string }; files: unknown };
    expect(result.bundle.sha256).toBe(plan.bundle.sha256);
    expect(uploadedFiles(result.bundle.sha256)).toEqual(plan.files);
    expect(real.stderr).toContain("warning: left out a file that looks like a secret: .env");
  });

  test("private keys, key stores, *.env and cloud credential files are left out and named, trailing spaces or dots or not", async () => {
    const secrets = [
      "id_ed25519",
      "id_ecdsa",
      "cert.p12",
      "server.pfx",
      "prod.env",
      "credentials.json",
      "x.pem ",
      "y.key.",
    ];
    const dir = tree({
      "manifest.json": MANIFEST,
      "sounds/ding.mp3": MP3,
      ...Object.fromEntries(secrets.map((f) => [f, "s3cr3t"])),
    });
    const dry = await deploy([dir, "--extension", "ext_plain", "--version", "secrets-1", "--dry-run", "--json"]);
    expect(dry.code).toBe(0);
    const plan = JSON.parse(dry.stdout) as { files: { path: string }[]; excluded: { path: string; rule: string }[] };
    expect(plan.files.map((f) => f.path)).toEqual(["manifest.json", "sounds/ding.mp3"]);
    expect(plan.excluded.map((e) => e.path).sort()).toEqual([...secrets].sort());
    for (const e of plan.excluded) expect(e.rule).toStartWith("default (looks like a secret): ");
    const warning = dry.stderr
      .split("\n")
      .find((l) => l.startsWith("warning: left out 8 files that look like secrets: "));
    expect(warning).toBeDefined();
    for (const name of secrets) expect(warning).toContain(name);
  });

  test("a file name with a newline or an escape sequence cannot forge a line: every name is printed escaped", async () => {
    const forged = "a\n\u001b[2Kdry run: ext_plain 9.9.9 passes every check\u202e.js";
    const dir = tree({
      "manifest.json": MANIFEST,
      "sounds/ding.mp3": MP3,
      [`layer/${forged}`]: "x",
      [`${forged}.pem`]: "k",
    });
    const dry = await deploy([dir, "--extension", "ext_plain", "--version", "forged-1", "--dry-run"]);
    // The server-side rules refuse such a name (exit 2): what matters here is what the terminal shows meanwhile.
    expect(dry.code).toBe(2);
    const shown = dry.stdout + dry.stderr;
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what must not reach the terminal.
    expect(shown).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
    expect(shown.split("\n").filter((l) => l.includes("passes every check") && !l.includes("\\x1b"))).toEqual([]);
    expect(dry.stdout).toContain("a\\n\\x1b[2Kdry run: ext_plain 9.9.9 passes every check\\u202e.js");
    expect(dry.stderr).toContain("\\x1b[2K");
  });

  test("--dry-run prints the packed files as a tree with sizes, components and sounds against their limits, and what was left out", async () => {
    const r = await deploy([tree(DEVELOPER_TREE), "--extension", "ext_plain", "--version", "tree", "--dry-run"]);
    expect(r.code).toBe(0);
    const lines = r.stdout.split("\n");
    expect(lines[0]).toBe("files (4 files, 92 B):");
    expect(lines.slice(1, 8).map((l) => l.replace(/ +/g, " ").trimEnd())).toEqual([
      " .well-known/",
      " assetlinks.json 2 B",
      ` layer/ component: ${lines[3]!.match(/component: (\d+ B) gzipped/)?.[1]} gzipped of 5.0 MB`,
      " index.js 24 B",
      ` manifest.json ${MANIFEST.length} B`,
      " sounds/",
      " ding.mp3 13 B sound: limit 10.0 MB, warning over 5.0 MB",
    ]);
    expect(lines[8]).toBe("left out (7):");
    expect(lines).toContain("  notes/              .extignore line 3: notes/");
    expect(r.stdout).toMatch(
      /^packed 4 files, 92 B \(archive \d+ B, sha256 [0-9a-f]{64}\); left out 7: \.DS_Store, \.env, \.extignore, \.git\/, assets\/\.DS_Store and 2 more \(see --dry-run\)$/m,
    );
    expect(r.stdout).toContain("dry run: ext_plain tree passes every check; nothing was uploaded");
  });

  test("a real deploy prints a one-line summary, the upload in bytes (not 0.0 MB) and the version", async () => {
    const r = await deploy([tree(DEVELOPER_TREE), "--extension", "ext_plain", "--version", "summary"]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^packed 4 files, 92 B \(archive (\d+) B, sha256 [0-9a-f]{64}\); left out 7: /);
    const archive = lines[0]!.match(/archive (\d+) B/)![1];
    expect(lines[1]).toBe("sounds: 1 of 50 (platform_default)");
    expect(lines[2]).toBe(`uploaded ${archive} B to ${server.baseUrl}/extensions/ext_plain/versions`);
    expect(lines[3]).toMatch(/^version ver_\S+ \(summary\) of ext_plain: pending$/);
    expect(r.stderr).toContain(`uploading: 100% (${archive} B of ${archive} B)`);
    expect(r.stderr).not.toContain("0.0 MB");
  });

  test("one sound over a limit of 0 reads '1 sound', not '1 sounds'", async () => {
    const r = await deploy([
      tree({ "manifest.json": MANIFEST, "sounds/ding.mp3": MP3 }),
      "--extension",
      "ext_no_sounds",
      "--version",
      "one",
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("1 sound for this extension; the limit is 0");
    expect(r.stderr).not.toContain("1 sounds");
  });
});

/** Starts `ext deploy … --wait` in the background and returns it with the version id once the upload has made one. */
async function deployWaiting(label: string, extra: string[], baseUrl = server.baseUrl) {
  const proc = Bun.spawn(
    [
      built.bin,
      "deploy",
      tree({ "manifest.json": MANIFEST, "sounds/ding.mp3": MP3, ".env": "X=1" }),
      "--extension",
      "ext_plain",
      "--version",
      label,
      "--api-key",
      KEY,
      "--target",
      baseUrl,
      "--wait",
      ...extra,
    ],
    {
      cwd: work,
      env: cleanEnv(),
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  const versionOf = async () => {
    const res = await fetch(`${baseUrl}/extensions/ext_plain/versions`, {
      headers: { authorization: `Bearer ${KEY}` },
    });
    return ((await res.json()) as { versions: { id: string; version: string }[] }).versions.find(
      (v) => v.version === label,
    )?.id;
  };
  // The version, or the deploy's end (which the caller's checks then explain).
  let versionId: string | undefined;
  await waitFor(async () => (versionId = await versionOf()) ?? proc.exitCode !== null, "the deployed version");
  expect(versionId).toBeDefined();
  const finished = async () => {
    const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
    return { code: await proc.exited, stdout, stderr };
  };
  return { versionId: versionId!, finished };
}

const reject = (versionId: string, reason: string, at: ServedBinary = server) =>
  adminFetch(at, `/versions/${versionId}/reject`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ reason }),
  });

describe("every outcome keeps the summary: packed, uploaded, the version id, the review's reason", () => {
  const summary = /^packed 2 files, \d+ B \(archive (\d+) B, sha256 [0-9a-f]{64}\); left out 1: \.env$/m;

  test("409 version_exists: the summary on stdout, the upload, no version created; --json has the report too", async () => {
    const dir = tree({ "manifest.json": MANIFEST, "sounds/ding.mp3": MP3, ".env": "X=1" });
    expect((await deploy([dir, "--extension", "ext_plain", "--version", "twice"])).code).toBe(0);
    // A taken label is refused before the upload; a 409 from the submission itself (another deploy of the
    // same label in between) is made here by a fault rule, which answers before reading the body.
    const rule = await adminFetch(server, `/faults`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({
        method: "POST",
        path: "/extensions/ext_plain/versions",
        status: 409,
        code: "version_exists",
      }),
    });
    expect(rule.status).toBe(201);
    const ruleId = ((await rule.json()) as { fault: { id: string } }).fault.id;
    try {
      const again = await deploy([dir, "--extension", "ext_plain", "--version", "twice-more"]);
      expect(again.code).toBe(1);
      expect(again.stdout).toMatch(summary);
      expect(again.stdout).toContain("sounds: 1 of 50 (platform_default)");
      expect(again.stdout).toMatch(/\nuploaded \d+ B( of \d+ B)? to \S+\/extensions\/ext_plain\/versions/);
      expect(again.stdout).toContain("no version was created for twice-more of ext_plain");
      expect(again.stderr).toContain("409 version_exists");
      const json = await deploy([dir, "--extension", "ext_plain", "--version", "twice-more", "--json"]);
      expect(json.code).toBe(1);
      expect(JSON.parse(json.stdout)).toMatchObject({
        ok: false,
        error: { code: "version_exists", status: 409 },
        versionId: null,
        files: [{ path: "manifest.json" }, { path: "sounds/ding.mp3" }],
        excluded: [{ path: ".env" }],
        upload: { sent: expect.any(Number), total: expect.any(Number) },
      });
    } finally {
      await adminFetch(server, `/faults/${ruleId}`, { method: "DELETE" });
    }
  });

  test("--wait rejected: the version line carries the review's reason, on stdout and in the error (exit 1)", async () => {
    const { versionId, finished } = await deployWaiting("to-reject", ["--timeout", "30"]);
    expect((await reject(versionId, "The sound clips at the start.")).status).toBe(200);
    const r = await finished();
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(summary);
    expect(r.stdout).toContain(
      `version ${versionId} (to-reject) of ext_plain: rejected (reason: The sound clips at the start.)`,
    );
    expect(r.stderr).toContain(`error: version ${versionId} was rejected by review: The sound clips at the start.`);
  });

  test("--wait rejected with --json: one object with the version id, status, reason and files", async () => {
    const { versionId, finished } = await deployWaiting("to-reject-json", ["--timeout", "30", "--json"]);
    expect((await reject(versionId, "Not this one, thanks.")).status).toBe(200);
    const r = await finished();
    expect(r.code).toBe(1);
    expect(r.stdout.trim().split("\n")).toHaveLength(1);
    expect(JSON.parse(r.stdout)).toMatchObject({
      ok: false,
      error: { message: `version ${versionId} was rejected by review: Not this one, thanks.` },
      versionId,
      status: "rejected",
      reason: "Not this one, thanks.",
      files: [{ path: "manifest.json" }, { path: "sounds/ding.mp3" }],
    });
  });

  test("--wait --timeout: the summary and the version id, in text and in --json", async () => {
    const text = await deployWaiting("timeout-text", ["--timeout", "1"]);
    const r = await text.finished();
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(summary);
    expect(r.stdout).toContain(`version ${text.versionId} (timeout-text) of ext_plain: pending`);
    expect(r.stderr).toContain(`version ${text.versionId} is still pending after 1 s (--timeout)`);
    const json = await deployWaiting("timeout-json", ["--timeout", "1", "--json"]);
    const j = await json.finished();
    expect(j.code).toBe(1);
    expect(JSON.parse(j.stdout)).toMatchObject({
      ok: false,
      versionId: json.versionId,
      status: "pending",
      upload: { url: `${server.baseUrl}/extensions/ext_plain/versions` },
    });
  });

  test("the server goes away during --wait: the summary and the version id still reach stdout (exit 1)", async () => {
    const other = await serve(built.bin, ["--memory", "--seed", join(work, "fixture.json"), "--no-rate-limits"], work);
    const { versionId, finished } = await deployWaiting("server-gone", ["--timeout", "30"], other.baseUrl);
    await other.stop();
    const r = await finished();
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(summary);
    expect(r.stdout).toContain(`version ${versionId} (server-gone) of ext_plain: pending`);
    expect(r.stderr).toContain("cannot reach");
  });
});
