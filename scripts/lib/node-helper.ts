/**
 * The main npm package's contents, built from packaging/npm/: the launcher and lib/binary.cjs as they are,
 * the Node helper (packaging/npm/src, on client/) bundled into index.cjs by Bun.build (index.mjs re-exports
 * it), and its declarations emitted by tsc from the same sources, with the generated schema types beside
 * them. Used by `npm run package`, the tests and the bench.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, sep } from "node:path";
import rootPkg from "../../package.json" with { type: "json" };
import { ROOT } from "./compile";
import { writePackageDocs } from "./package-docs";
import { withPackageMetadata } from "./package-metadata";

const NPM = join(ROOT, "packaging/npm");
/** Where the declarations live in the package, by their path in this repository. */
const TYPES = "types";
const ENTRY_TYPES = `./${TYPES}/packaging/npm/src/index.js`;

async function bundle(dir: string): Promise<void> {
  const result = await Bun.build({
    entrypoints: [join(NPM, "src/index.ts")],
    target: "node",
    format: "cjs",
    outdir: dir,
    naming: "index.cjs",
    // lib/binary.cjs stays a file of its own, shared with the launcher: required at run time from the
    // package's root, where the bundle is (and where its __dirname is the installed one, not this checkout's).
    plugins: [
      {
        name: "binary-cjs-external",
        setup(build) {
          build.onResolve({ filter: /\/lib\/binary\.cjs$/ }, () => ({ path: "./lib/binary.cjs", external: true }));
        },
      },
    ],
  });
  if (!result.success) throw new Error(`bundling the Node helper failed:\n${result.logs.join("\n")}`);
}

function declarations(dir: string): void {
  const tsconfig = join(dir, "tsconfig.types.json");
  writeFileSync(
    tsconfig,
    JSON.stringify({
      extends: join(NPM, "tsconfig.json"),
      compilerOptions: {
        noEmit: false,
        declaration: true,
        emitDeclarationOnly: true,
        rootDir: ROOT,
        outDir: join(dir, TYPES),
        typeRoots: [join(ROOT, "node_modules/@types")],
      },
      include: [],
      files: [join(NPM, "src/index.ts")],
    }),
  );
  const tsc = spawnSync("node", [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", tsconfig], { encoding: "utf8" });
  if (tsc.status !== 0) throw new Error(`the Node helper's declarations failed:\n${tsc.stdout}${tsc.stderr}`);
  // tsc emits nothing for the generated .d.ts files; they are shipped as they are.
  for (const name of ["schema.d.ts", "fixture.d.ts"])
    copyFileSync(join(ROOT, "client", name), join(dir, TYPES, "client", name));
  // The types use Node's (node:fs, NodeJS.ProcessEnv): named here, they load wherever @types/node is
  // installed, also where a project's compilerOptions.types does not list it.
  const entry = `/// <reference types="node" />\nexport * from ${JSON.stringify(ENTRY_TYPES)};\n`;
  for (const name of ["index.d.ts", "index.d.mts", "index.d.cts"]) writeFileSync(join(dir, name), entry);
  rmSync(tsconfig);
}

/** Writes the main package into `dir` (its package.json still at version 0.0.0, with no platform packages). */
export async function buildNodeHelper(dir: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  cpSync(NPM, dir, {
    recursive: true,
    filter: (src) => !src.startsWith(join(NPM, "src")) && !src.endsWith("tsconfig.json"),
  });
  await bundle(dir);
  declarations(dir);
  // The CI recipes and the ready-made test setups, where a user who installed the package finds them; the bench
  // results the docs' figures come from: the docs link to them, and links must work offline.
  const noInstalls = (src: string) => !src.split(sep).includes("node_modules");
  for (const shipped of ["examples/ci", "examples/vitest", "examples/jest", "examples/node-test", "bench/results"])
    cpSync(join(ROOT, shipped), join(dir, shipped), { recursive: true, filter: noInstalls });
  // The profile format's JSON Schema, for an editor checking a profile kept in a project (docs/profiles.md).
  copyFileSync(join(ROOT, "docs/profile.schema.json"), join(dir, "profile.schema.json"));
  // startEmulator() seeds the demo fixture with fresh keys: it writes this copy with new ones for each emulator.
  copyFileSync(join(ROOT, "fixtures/demo.json"), join(dir, "lib/demo-fixture.json"));
  const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  // The runtime is bundled; the declarations name openapi-fetch's client type.
  pkg.dependencies = { "openapi-fetch": rootPkg.dependencies["openapi-fetch"] };
  writeFileSync(join(dir, "package.json"), `${JSON.stringify(withPackageMetadata(pkg, dir), null, 2)}\n`);
  // The front door: the repository's README and docs pages, their links made to work inside the package.
  writePackageDocs(dir);
}
