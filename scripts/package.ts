/**
 * `npm run package` → dist/npm/*.tgz, installable with `npm i dist/npm/*.tgz`: the main package
 * `ext-emulator` (the Node launcher `ext`, the Node test helper, types; packaging/npm/) and the platform
 * package `@ext-emulator/<os>-<cpu>` holding only the binary (packaging/platform/ is its template), for this
 * machine, or for every platform with `--all`. The main package lists every platform package as an optional
 * dependency; npm installs the one whose `os`/`cpu` match.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import rootPkg from "../package.json" with { type: "json" };
import { compileBinary, hostPlatform, PLATFORMS, type Platform, prepareDashboard, ROOT } from "./lib/compile";
import { buildNodeHelper } from "./lib/node-helper";
import { withPackageMetadata } from "./lib/package-metadata";

const OUT = resolve(ROOT, "dist/npm");
const STAGE = join(OUT, ".stage");
const PACKAGING = join(ROOT, "packaging");

export const platformPackageName = (p: Platform) => `@ext-emulator/${p.os}-${p.cpu}`;

function npmPack(dir: string): string {
  const r = spawnSync("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", OUT], {
    cwd: dir,
    encoding: "utf8",
    shell: process.platform === "win32",
  });
  if (r.status !== 0) throw new Error(`npm pack in ${dir} failed: ${r.stderr}`);
  return (JSON.parse(r.stdout) as { filename: string }[])[0]!.filename;
}

/** The platform package from packaging/platform/, with this platform's name, os, cpu and binary. */
function stagePlatform(p: Platform): string {
  const dir = join(STAGE, `${p.os}-${p.cpu}`);
  const fill = (text: string) =>
    text
      .replaceAll("OS-CPU", `${p.os}-${p.cpu}`)
      .replaceAll('"OS"', JSON.stringify(p.os))
      .replaceAll('"CPU"', JSON.stringify(p.cpu));
  mkdirSync(join(dir, "bin"), { recursive: true });
  const pkg = JSON.parse(fill(readFileSync(join(PACKAGING, "platform/package.json"), "utf8")));
  pkg.version = rootPkg.version;
  writeFileSync(join(dir, "package.json"), `${JSON.stringify(withPackageMetadata(pkg, dir), null, 2)}\n`);
  writeFileSync(join(dir, "README.md"), fill(readFileSync(join(PACKAGING, "platform/README.md"), "utf8")));
  const bin = join(dir, "bin", p.os === "win32" ? "ext.exe" : "ext");
  compileBinary(bin, p.target);
  chmodSync(bin, 0o755);
  return dir;
}

/** The main package: packaging/npm/ built (scripts/lib/node-helper.ts), plus its version and the optional dependencies. */
async function stageMain(): Promise<string> {
  const dir = join(STAGE, "main");
  await buildNodeHelper(dir);
  const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  pkg.version = rootPkg.version;
  pkg.optionalDependencies = Object.fromEntries(PLATFORMS.map((p) => [platformPackageName(p), rootPkg.version]));
  writeFileSync(join(dir, "package.json"), `${JSON.stringify(pkg, null, 2)}\n`);
  chmodSync(join(dir, "bin/ext.cjs"), 0o755);
  return dir;
}

if (import.meta.main) {
  const all = process.argv.includes("--all");
  const host = hostPlatform();
  if (!all && !host) {
    console.error(`no binary target for ${process.platform}-${process.arch}; use --all to package every platform`);
    process.exit(2);
  }
  mkdirSync(OUT, { recursive: true });
  for (const f of readdirSync(OUT)) if (f.endsWith(".tgz")) rmSync(join(OUT, f));
  rmSync(STAGE, { recursive: true, force: true });
  try {
    await prepareDashboard();
    const tarballs = [npmPack(await stageMain()), ...(all ? PLATFORMS : [host!]).map((p) => npmPack(stagePlatform(p)))];
    for (const t of tarballs) console.log(`dist/npm/${t}`);
  } catch (e) {
    console.error((e as Error).message);
    process.exit(1);
  } finally {
    rmSync(STAGE, { recursive: true, force: true });
  }
}
