import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import tar from "tar-stream";
import { audioFile } from "../../scripts/lib/archive-writer";
import { DEFAULT_BUNDLE_LIMITS } from "../../server/bundles/bundle-limits";
import { inspectBundle } from "../../server/bundles/inspect";
import { PackError, packDirectory } from "../../tools/deploy/pack";

const root = mkdtempSync(join(tmpdir(), "ext-pack-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let n = 0;
/** A compiled output directory on disk, as the deploy tool finds it. */
function makeOutputDir(sounds = 2): string {
  const dir = join(root, `out-${n++}`);
  for (const sub of ["layer", "editor", "interactive", "assets", "sounds"])
    mkdirSync(join(dir, sub), { recursive: true });
  const list = Array.from({ length: sounds }, (_, i) => ({ name: `s${i}`, file: `sounds/s${i}.ogg` }));
  writeFileSync(join(dir, "manifest.json"), JSON.stringify({ sounds: list, actions: [], allowHosts: [] }));
  for (const c of ["layer", "editor", "interactive"])
    writeFileSync(join(dir, c, "index.js"), `export const ${c} = 1;\n`);
  writeFileSync(join(dir, "assets", "logo.svg"), "<svg/>");
  for (const s of list) writeFileSync(join(dir, s.file), audioFile("OGG", 300));
  return dir;
}

async function headers(file: string) {
  const extract = tar.extract();
  const out: tar.Header[] = [];
  const done = (async () => {
    for await (const e of extract) {
      out.push(e.header);
      for await (const _ of e) void _;
    }
  })();
  extract.end(gunzipSync(readFileSync(file)));
  await done;
  return out;
}

describe("packDirectory", () => {
  test("packs a valid bundle that inspection accepts, with sorted, normalised entries", async () => {
    const dir = makeOutputDir();
    chmodSync(join(dir, "layer", "index.js"), 0o777);
    const out = join(root, "a.tar.gz");
    const result = await packDirectory(dir, out);
    expect(result.bytes).toBe(readFileSync(out).length);
    expect(result.sha256).toBe(new Bun.CryptoHasher("sha256").update(readFileSync(out)).digest("hex"));
    const hs = await headers(out);
    expect(result.entries).toBe(hs.length);
    const names = hs.map((h) => h.name);
    expect(names).toEqual([...names].sort());
    expect(names).toContain("manifest.json");
    for (const h of hs) {
      expect(h.uid).toBe(0);
      expect(h.gid).toBe(0);
      expect(h.uname).toBe("");
      expect(h.mtime.getTime()).toBe(946_684_800_000);
      expect(h.mode).toBe(h.type === "directory" ? 0o755 : 0o644);
    }
    expect(await inspectBundle(out, DEFAULT_BUNDLE_LIMITS)).toMatchObject({ problems: [], soundCount: 2 });
  });

  test("is deterministic: the same tree gives the same bytes", async () => {
    const a = await packDirectory(makeOutputDir(3), join(root, "d1.tar.gz"));
    const b = await packDirectory(makeOutputDir(3), join(root, "d2.tar.gz"));
    expect(a.sha256).toBe(b.sha256);
    expect(a.bytes).toBe(b.bytes);
  });

  test("refuses a symbolic link in the output directory", async () => {
    const dir = makeOutputDir();
    symlinkSync("/etc/passwd", join(dir, "assets", "passwd"));
    await expect(packDirectory(dir, join(root, "link.tar.gz"))).rejects.toBeInstanceOf(PackError);
  });
});

describe("inspectBundle on archives made by the system tar", () => {
  const systemTar = (dir: string, out: string, ...extra: string[]) => {
    const p = Bun.spawnSync(["tar", "-czf", out, ...extra, "-C", dir, "."]);
    if (p.exitCode !== 0) throw new Error(p.stderr.toString());
  };

  test("a valid output directory passes (names prefixed with ./)", async () => {
    const out = join(root, "sys.tar.gz");
    systemTar(makeOutputDir(), out);
    expect((await headers(out)).some((h) => h.name.startsWith("./"))).toBe(true);
    expect(await inspectBundle(out, DEFAULT_BUNDLE_LIMITS)).toMatchObject({ problems: [], soundCount: 2 });
  });

  test("a symlink and 51 sounds are both reported, each with its path", async () => {
    const dir = makeOutputDir(51);
    symlinkSync("../manifest.json", join(dir, "assets", "m.json"));
    const out = join(root, "sys-bad.tar.gz");
    systemTar(dir, out);
    const { problems } = await inspectBundle(out, DEFAULT_BUNDLE_LIMITS);
    expect(problems.map((p) => p.path).sort()).toEqual(["./assets/m.json", "manifest.json"]);
    expect(problems.find((p) => p.path === "manifest.json")).toMatchObject({
      limit: "max_sounds_per_extension",
      max: 50,
      current: 51,
    });
  });
});

describe("what packDirectory leaves out", () => {
  /** A valid output directory plus the given extra files (a `null` makes a directory). */
  function withExtras(extra: Record<string, string | null>): string {
    const dir = makeOutputDir(1);
    for (const [path, content] of Object.entries(extra)) {
      if (content === null) mkdirSync(join(dir, path), { recursive: true });
      else {
        mkdirSync(join(dir, path, ".."), { recursive: true });
        writeFileSync(join(dir, path), content);
      }
    }
    return dir;
  }
  const LITTER = {
    ".env": "SECRET=1",
    ".env.production": "SECRET=2",
    "certs/server.pem": "-----BEGIN",
    "certs/server.key": "k",
    id_rsa: "k",
    ".npmrc": "//registry/:_authToken=x",
    ".git/config": "[core]",
    ".hg/hgrc": "x",
    ".svn/entries": "x",
    ".DS_Store": "x",
    "assets/.DS_Store": "x",
    "assets/._logo.svg": "x",
    "Thumbs.db": "x",
    ".cache/x.json": "{}",
    "layer/.eslintrc": "{}",
  };

  test("VCS folders, OS litter, dotfiles and secret-looking files, each with its rule; secrets named apart", async () => {
    const out = join(root, "litter.tar.gz");
    const r = await packDirectory(withExtras(LITTER), out);
    const names = (await headers(out)).map((h) => h.name);
    expect(names.filter((n) => !n.endsWith("/"))).toEqual([
      "assets/logo.svg",
      "editor/index.js",
      "interactive/index.js",
      "layer/index.js",
      "manifest.json",
      "sounds/s0.ogg",
    ]);
    expect(r.files.map((f) => f.path)).toEqual(names.filter((n) => !n.endsWith("/")));
    expect(Object.fromEntries(r.excluded.map((e) => [e.path, e.rule]))).toEqual({
      ".DS_Store": "always (OS file): .DS_Store",
      ".cache/": "default (dotfile): .*",
      ".env": "default (looks like a secret): .env",
      ".env.production": "default (looks like a secret): .env.*",
      ".git/": "always (VCS folder): .git",
      ".hg/": "always (VCS folder): .hg",
      ".npmrc": "default (looks like a secret): .npmrc",
      ".svn/": "always (VCS folder): .svn",
      "Thumbs.db": "always (OS file): Thumbs.db",
      "assets/.DS_Store": "always (OS file): .DS_Store",
      "assets/._logo.svg": "always (OS file): ._*",
      "certs/server.key": "default (looks like a secret): *.key",
      "certs/server.pem": "default (looks like a secret): *.pem",
      id_rsa: "default (looks like a secret): id_rsa*",
      "layer/.eslintrc": "default (dotfile): .*",
    });
    expect(r.secretLike).toEqual({
      excluded: [".env", ".env.production", ".npmrc", "certs/server.key", "certs/server.pem", "id_rsa"],
      included: [],
    });
    // An empty certs/ stays as a directory entry, nothing in it.
    expect(names).toContain("certs/");
  });

  test(".extignore adds rules (with line numbers) and re-includes with !pattern, a dot-folder too; VCS and OS litter stay out", async () => {
    const dir = withExtras({
      ...LITTER,
      ".well-known/assetlinks.json": "[]",
      ".env.example": "SECRET=",
      "layer/index.js.map": "{}",
      "notes/todo.txt": "x",
      ".extignore": "# maps are for local debugging\n*.map\nnotes/\n!.well-known/\n!.env.example\n!.git\n!.DS_Store\n",
    });
    const r = await packDirectory(dir, join(root, "extignore.tar.gz"));
    const files = r.files.map((f) => f.path);
    expect(files).toContain(".well-known/assetlinks.json");
    expect(files).toContain(".env.example");
    expect(files).not.toContain("layer/index.js.map");
    expect(files.some((f) => f.startsWith(".git") || f.endsWith(".DS_Store") || f === ".extignore")).toBe(false);
    const rules = Object.fromEntries(r.excluded.map((e) => [e.path, e.rule]));
    expect(rules["layer/index.js.map"]).toBe(".extignore line 2: *.map");
    expect(rules["notes/"]).toBe(".extignore line 3: notes/");
    expect(rules[".git/"]).toBe("always (VCS folder): .git");
    expect(rules[".extignore"]).toBe("default (dotfile): .*");
    expect(r.secretLike.included).toEqual([".env.example"]);
  });

  test("exclusions keep packing deterministic: what is left out never changes the bytes", async () => {
    const a = await packDirectory(makeOutputDir(1), join(root, "x1.tar.gz"));
    const b = await packDirectory(withExtras({ ...LITTER, ".env": "OTHER=2" }), join(root, "x2.tar.gz"));
    const c = await packDirectory(withExtras(LITTER), join(root, "x3.tar.gz"));
    expect(b.sha256).toBe(c.sha256);
    expect(readFileSync(join(root, "x2.tar.gz"))).toEqual(readFileSync(join(root, "x3.tar.gz")));
    expect(a.files).toEqual(b.files);
  });

  test("a symbolic link that a rule leaves out is listed, not followed; one that would be packed is refused", async () => {
    const dir = withExtras({ ".extignore": "assets/passwd\n" });
    symlinkSync("/etc/passwd", join(dir, "assets", "passwd"));
    symlinkSync("/etc", join(dir, ".etc"));
    const r = await packDirectory(dir, join(root, "link-out.tar.gz"));
    expect(r.excluded).toContainEqual({ path: "assets/passwd", rule: ".extignore line 1: assets/passwd" });
    expect(r.excluded).toContainEqual({ path: ".etc", rule: "default (dotfile): .*" });
    symlinkSync("/etc/passwd", join(dir, "assets", "kept"));
    await expect(packDirectory(dir, join(root, "link-in.tar.gz"))).rejects.toThrow(/assets\/kept: .*symbolic link/);
  });

  test("an .extignore in a subfolder is not read, and its exclusion says so", async () => {
    const dir = withExtras({ "layer/.extignore": "secret.json\n", "layer/secret.json": "{}" });
    const r = await packDirectory(dir, join(root, "nested-rules.tar.gz"));
    expect(r.files.map((f) => f.path)).toContain("layer/secret.json");
    expect(r.excluded).toContainEqual({
      path: "layer/.extignore",
      rule: "default (dotfile): .* (only the .extignore at the root is read: its rules were not applied)",
    });
  });

  test("an .extignore over 64 KB is refused", async () => {
    const dir = withExtras({ ".extignore": "#".repeat(64 * 1024 + 1) });
    await expect(packDirectory(dir, join(root, "big-rules.tar.gz"))).rejects.toThrow(/\.extignore is 65537 bytes/);
  });

  test("component sizes are the inspector's: the limit at the reported size passes, one byte less fails", async () => {
    const dir = withExtras({ "layer/more.js": "x".repeat(50_000) });
    const out = join(root, "components.tar.gz");
    const r = await packDirectory(dir, out);
    const layer = r.components.find((c) => c.path === "layer/")!.gzipBytes;
    expect(r.components.map((c) => c.path)).toEqual(["layer/", "editor/", "interactive/"]);
    expect((await inspectBundle(out, { ...DEFAULT_BUNDLE_LIMITS, bundle_layer_gzip_bytes: layer })).problems).toEqual(
      [],
    );
    expect(
      (await inspectBundle(out, { ...DEFAULT_BUNDLE_LIMITS, bundle_layer_gzip_bytes: layer - 1 })).problems,
    ).toEqual([expect.objectContaining({ path: "layer/", current: layer })]);
  });
});
