import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, chmodSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import tar from "tar-stream";
import { audioFile } from "../../scripts/lib/archive-writer";
import { DEFAULT_BUNDLE_LIMITS } from "../../src/bundles/bundle-limits";
import { inspectBundle } from "../../src/bundles/inspect";
import { PackError, packDirectory } from "../../src/bundles/pack";

const root = mkdtempSync(join(tmpdir(), "ext-pack-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let n = 0;
/** A compiled output directory on disk, as the deploy tool finds it. */
function makeOutputDir(sounds = 2): string {
  const dir = join(root, `out-${n++}`);
  for (const sub of ["layer", "editor", "interactive", "assets", "sounds"]) mkdirSync(join(dir, sub), { recursive: true });
  const list = Array.from({ length: sounds }, (_, i) => ({ name: `s${i}`, file: `sounds/s${i}.ogg` }));
  writeFileSync(join(dir, "manifest.json"), JSON.stringify({ sounds: list, actions: [], allowHosts: [] }));
  for (const c of ["layer", "editor", "interactive"]) writeFileSync(join(dir, c, "index.js"), `export const ${c} = 1;\n`);
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
    expect(problems.find((p) => p.path === "manifest.json")).toMatchObject({ limit: "max_sounds_per_extension", max: 50, current: 51 });
  });
});
