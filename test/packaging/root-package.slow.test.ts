/**
 * The checkout's own package.json is not what users install (that is generated into dist/npm/): it stays
 * private and has no `bin`, since `npm install /path/to/checkout` would otherwise chmod its target (a file
 * in the checkout) to 755. The main package's template is checked against what the README promises a
 * project ("Install" and the Node helper): `npm i -D ext-emulator`, `npx ext`, Node ≥ 20, and
 * `startEmulator`/`connectEmulator` from both `import` and `require` — resolved by Node itself.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import {
  existsSync,
  globSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import rootPkg from "../../package.json" with { type: "json" };
import { withPackageMetadata } from "../../scripts/lib/package-metadata";
import { sharedNodeHelper } from "../helpers/build-cache";
import { cleanEnv } from "../helpers/clean-env";

const TEMPLATE = resolve(import.meta.dir, "../../packaging/npm");
const project = mkdtempSync(join(tmpdir(), "ext-root-package-"));
/** The main package as `npm run package` builds it from the template (the Node helper is bundled then). */
let built: string;
beforeAll(async () => {
  built = await sharedNodeHelper();
}, 60_000);
afterAll(() => rmSync(project, { recursive: true, force: true }));

test("the root package is private and has no bin", () => {
  expect(rootPkg.private).toBe(true);
  expect("bin" in rootPkg).toBe(false);
});

test("the main package's template: the README's name, command and Node version", () => {
  const main = JSON.parse(readFileSync(join(TEMPLATE, "package.json"), "utf8"));
  expect(main.name).toBe("ext-emulator");
  expect(Object.keys(main.bin)).toEqual(["ext"]);
  expect(readFileSync(join(TEMPLATE, main.bin.ext), "utf8").split("\n")[0]).toBe("#!/usr/bin/env node");
  expect(main.engines).toEqual({ node: ">=20" });
});

test("a Node project gets the same startEmulator and connectEmulator through import and require", () => {
  mkdirSync(join(project, "node_modules"));
  symlinkSync(built, join(project, "node_modules/ext-emulator"), "dir");
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "user-project", private: true }));
  writeFileSync(
    join(project, "check.mjs"),
    [
      'import * as esm from "ext-emulator";',
      'import { createRequire } from "node:module";',
      'const cjs = createRequire(import.meta.url)("ext-emulator");',
      "const names = ['startEmulator', 'connectEmulator'];",
      "console.log(JSON.stringify(names.map((n) => [n, typeof esm[n], esm[n] === cjs[n]])));",
    ].join("\n"),
  );
  const run = Bun.spawnSync(["node", "check.mjs"], { cwd: project, env: cleanEnv(), stderr: "pipe" });
  expect(run.stderr.toString()).toBe("");
  expect(JSON.parse(run.stdout.toString())).toEqual([
    ["startEmulator", "function", true],
    ["connectEmulator", "function", true],
  ]);
});

test("every package is MIT; the published ones name the repository, homepage and bugs from the root package.json", () => {
  const ROOT = resolve(import.meta.dir, "../..");
  const files = ["package.json", "packaging/npm/package.json", "packaging/platform/package.json"].concat(
    globSync("examples/*/package.json", { cwd: ROOT }),
  );
  expect(files.length).toBeGreaterThan(4);
  for (const file of files)
    expect([file, JSON.parse(readFileSync(join(ROOT, file), "utf8")).license]).toEqual([file, "MIT"]);
  expect(readFileSync(join(ROOT, "LICENSE"), "utf8")).toStartWith(
    "MIT License\n\nCopyright (c) 2026 the ext authors\n",
  );

  const main = JSON.parse(readFileSync(join(built, "package.json"), "utf8"));
  expect(main).toMatchObject({
    license: "MIT",
    repository: { type: "git", url: "git+https://github.com/ext-emulator/ext.git" },
    homepage: "https://github.com/ext-emulator/ext#readme",
    bugs: { url: "https://github.com/ext-emulator/ext/issues" },
  });
  expect(readFileSync(join(built, "LICENSE"), "utf8")).toBe(readFileSync(join(ROOT, "LICENSE"), "utf8"));
  const platformDir = mkdtempSync(join(project, "platform-"));
  const template = JSON.parse(readFileSync(join(ROOT, "packaging/platform/package.json"), "utf8"));
  const platform = withPackageMetadata(template, platformDir);
  expect(platform).toMatchObject({ license: "MIT", repository: rootPkg.repository, homepage: rootPkg.homepage });
  expect(Object.keys(platform).slice(0, 4)).toEqual(["name", "version", "description", "license"]);
});

test("the CI recipes ship in the main package, where a user who installed it finds them", () => {
  const ROOT = resolve(import.meta.dir, "../..");
  for (const file of [
    "README.md",
    "github-actions.yml",
    "gitlab-ci.yml",
    "github-action/action.yml",
    "github-action/start.sh",
  ])
    expect(readFileSync(join(built, "examples/ci", file), "utf8")).toBe(
      readFileSync(join(ROOT, "examples/ci", file), "utf8"),
    );
  const main = JSON.parse(readFileSync(join(TEMPLATE, "package.json"), "utf8"));
  expect(main.files).toContain("examples/");
});

test("the profile format's JSON Schema ships in the main package, as ext-emulator/profile.schema.json", () => {
  const ROOT = resolve(import.meta.dir, "../..");
  expect(readFileSync(join(built, "profile.schema.json"), "utf8")).toBe(
    readFileSync(join(ROOT, "docs/profile.schema.json"), "utf8"),
  );
  const main = JSON.parse(readFileSync(join(TEMPLATE, "package.json"), "utf8"));
  expect(main.files).toContain("profile.schema.json");
  expect(main.exports["./profile.schema.json"]).toBe("./profile.schema.json");
});

test("the package's README and docs are the repository's, word for word but for link targets, and npm packs them", () => {
  const ROOT = resolve(import.meta.dir, "../..");
  const pages = ["README.md", ...globSync("docs/*.md", { cwd: ROOT }).sort()];
  expect(pages).toContain("docs/cli.md");
  // Drift: the same text once every link target is set aside (the package's may point at GitHub instead).
  const text = (markdown: string) => markdown.replace(/(!?\[[^\]]*\])\([^)\s]+\)/g, "$1()");
  for (const page of pages)
    expect([page, text(readFileSync(join(built, page), "utf8"))]).toEqual([
      page,
      text(readFileSync(join(ROOT, page), "utf8")),
    ]);
  // Every relative link of a shipped page names a file of the package.
  for (const page of pages)
    for (const m of readFileSync(join(built, page), "utf8").matchAll(/!?\[[^\]]*\]\(([^)\s#]+)(#[^)\s]*)?\)/g)) {
      const target = m[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      const file = join(built, page, "..", target);
      expect([page, target, file.startsWith(`${built}/`) && existsSync(file)]).toEqual([page, target, true]);
    }
  // What `npm pack` puts in the tarball, as npm itself lists it.
  const packed = Bun.spawnSync(["npm", "pack", "--dry-run", "--json", "--ignore-scripts"], {
    cwd: built,
    env: cleanEnv(),
    stdout: "pipe",
    stderr: "pipe",
  });
  expect(packed.exitCode, packed.stderr.toString()).toBe(0);
  const files = (JSON.parse(packed.stdout.toString()) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);
  const alsoShipped = ["examples/ci/README.md", "examples/vitest/package.json", "bench/results/latest.md"];
  for (const page of [...pages, "docs/profile.schema.json", "docs/manifest.schema.json", ...alsoShipped])
    expect([page, files.includes(page)]).toEqual([page, true]);
});
