/**
 * `npm run release` → dist/release/: `ext` cross-compiled for every platform in PLATFORMS
 * (ext-linux-x64, …, ext-windows-x64.exe) and SHA256SUMS, checked with `sha256sum -c SHA256SUMS`.
 * Bun fetches each target's runtime through the npm registry the first time.
 */
import { createHash } from "node:crypto";
import { createReadStream, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { compileBinary, PLATFORMS, type Platform, prepareDashboard, ROOT, releaseName } from "./lib/compile";

export async function sha256(file: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/** Compiles each platform's binary into `dir`, named by releaseName(); returns their paths. */
export function compileAll(dir: string, platforms: readonly Platform[] = PLATFORMS): Map<Platform, string> {
  const built = new Map<Platform, string>();
  for (const p of platforms) {
    const file = join(dir, releaseName(p));
    compileBinary(file, p.target);
    built.set(p, file);
  }
  return built;
}

if (import.meta.main) {
  const dir = resolve(ROOT, "dist/release");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  try {
    await prepareDashboard();
    const built = compileAll(dir);
    // The `sha256sum` format: hash, two spaces, file name relative to the file itself.
    const lines = await Promise.all([...built].map(async ([p, file]) => `${await sha256(file)}  ${releaseName(p)}`));
    writeFileSync(join(dir, "SHA256SUMS"), `${lines.join("\n")}\n`);
  } catch (e) {
    console.error((e as Error).message);
    process.exit(1);
  }
  console.log(`built ${PLATFORMS.length} binaries and SHA256SUMS in dist/release/`);
}
