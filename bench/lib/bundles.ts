/**
 * Valid bundles for the upload rows, made the way `ext deploy` makes them: a compiled output directory
 * written to disk, then packed with the project's own packer. The content is random bytes, so gzip cannot
 * shrink it and the bytes on the wire are the bytes named. The layout respects every bundle rule
 * (docs/bundle-layout.md): FLAC sounds (real "fLaC" magic) each under the 5 MB warning threshold, assets
 * within 20 MB, the whole archive within 50 MB. Built once and kept in bench/.work/bundles (test/bench checks
 * them against the server's own inspection, so a rule change cannot silently turn the upload rows into 422s).
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { packDirectory } from "../../tools/deploy/pack";
import { WORK_DIR } from "./paths";
import { MB, removeDir } from "./proc";

export interface BenchBundle {
  file: string;
  bytes: number;
  sounds: number;
}

/** A file of `bytes` bytes: the header (a format's magic bytes), then random bytes. */
function writeRandom(file: string, bytes: number, header = ""): void {
  const head = Buffer.from(header, "latin1");
  const chunks: Buffer[] = [head];
  let left = bytes - head.length;
  while (left > 0) {
    const n = Math.min(left, MB);
    chunks.push(randomBytes(n));
    left -= n;
  }
  writeFileSync(file, Buffer.concat(chunks));
}

/**
 * A bundle of about `totalMB` MB: 60% sounds split into files under 5 MB, the rest in assets/ (≤ 19 MB,
 * leaving room under the 20 MB assets limit), plus a manifest and a small layer component.
 */
export async function benchBundle(totalMB: number, dir = join(WORK_DIR, "bundles")): Promise<BenchBundle> {
  mkdirSync(dir, { recursive: true });
  const name = `bundle-${totalMB}mb`;
  const file = join(dir, `${name}.tar.gz`);
  const total = Math.round(totalMB * MB);
  const assetBytes = Math.min(Math.floor(total * 0.4), 19 * MB);
  const soundBytes = total - assetBytes;
  const soundCount = Math.max(1, Math.ceil(soundBytes / (4.8 * MB)));
  if (!existsSync(file)) {
    const tree = join(dir, name);
    removeDir(tree);
    mkdirSync(join(tree, "sounds"), { recursive: true });
    mkdirSync(join(tree, "assets"), { recursive: true });
    mkdirSync(join(tree, "layer"), { recursive: true });
    const sounds = Array.from({ length: soundCount }, (_, i) => ({
      name: `Sound ${i + 1}`,
      file: `sounds/sound-${i + 1}.flac`,
    }));
    for (const s of sounds) writeRandom(join(tree, s.file), Math.floor(soundBytes / soundCount), "fLaC");
    writeRandom(join(tree, "assets", "textures.bin"), assetBytes);
    writeFileSync(join(tree, "layer", "index.js"), "export default function layer() { return null; }\n");
    writeFileSync(
      join(tree, "manifest.json"),
      JSON.stringify({ name: "Bench bundle", sounds, actions: [], allowHosts: [] }, null, 2),
    );
    await packDirectory(tree, file);
    removeDir(tree);
  }
  return { file, bytes: statSync(file).size, sounds: soundCount };
}
