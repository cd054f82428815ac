/** `ext init`'s sample test fits the project it lands in: the runner of the nearest package.json above it. */
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { scaffoldFiles } from "../../tools/cli/lib/scaffold";
import { detectTestRunner, TEST_FILES, TEST_RUNNERS } from "../../tools/cli/lib/test-runner";

function project(manifest: unknown): string {
  const root = mkdtempSync(join(tmpdir(), "ext-scaffold-"));
  writeFileSync(join(root, "package.json"), typeof manifest === "string" ? manifest : JSON.stringify(manifest));
  return root;
}

describe("detectTestRunner", () => {
  test("a runner in the test script, else in the dependencies: its name only", () => {
    const vitest = project({ scripts: { test: "vitest run" }, devDependencies: { vitest: "4.1.12" } });
    expect(detectTestRunner(join(vitest, "sound-board"))).toEqual({
      runner: "vitest",
      from: join(vitest, "package.json"),
    });
    const jest = project({ dependencies: { jest: "^30.0.0" } });
    expect(detectTestRunner(join(jest, "a", "b"))).toEqual({ runner: "jest", from: join(jest, "package.json") });
    // The script decides over a dependency that is only there for something else.
    const both = project({ scripts: { test: "jest --ci" }, devDependencies: { vitest: "4.1.12", jest: "30.5.2" } });
    expect(detectTestRunner(join(both, "x")).runner).toBe("jest");
  });

  test("the nearest package.json decides, even when it names no runner; none at all or a broken one: node", () => {
    const outer = project({ devDependencies: { vitest: "4.1.12" } });
    const inner = join(outer, "packages", "plain");
    mkdirSync(inner, { recursive: true });
    writeFileSync(join(inner, "package.json"), JSON.stringify({ name: "plain" }));
    expect(detectTestRunner(join(inner, "new-ext"))).toEqual({ runner: "node" });
    expect(detectTestRunner(join(outer, "new-ext")).runner).toBe("vitest");
    const broken = project("{ not json");
    expect(detectTestRunner(join(broken, "x")).runner).toBe("node");
    expect(detectTestRunner("/new-ext").runner).toBe("node");
  });
});

test("a range from a package.json above (which another user may have written) never reaches the new project", () => {
  const hostile = project({ devDependencies: { vitest: "file:/tmp/evil-vitest" }, scripts: { test: "vitest" } });
  const found = detectTestRunner(join(hostile, "my-ext"));
  expect(found.runner).toBe("vitest");
  const manifest = JSON.parse(scaffoldFiles("x", found)["package.json"] as string);
  expect(manifest.devDependencies.vitest).toBe(TEST_FILES.vitest.devDependencies.vitest);
  expect(JSON.stringify(manifest)).not.toContain("evil");
});

test("the runners' versions are the ones the examples lock (and CI runs)", () => {
  for (const runner of ["vitest", "jest"] as const) {
    const example = JSON.parse(readFileSync(join(import.meta.dir, `../../examples/${runner}/package.json`), "utf8"));
    expect(TEST_FILES[runner].devDependencies[runner]).toBe(`^${example.devDependencies[runner]}`);
  }
});

describe("scaffoldFiles", () => {
  for (const runner of TEST_RUNNERS) {
    test(`the ${runner} test is valid JavaScript for Node, named as the runner collects it, and the package runs it`, () => {
      const files = scaffoldFiles("Sound Board", { runner });
      const name = `test/${TEST_FILES[runner].file}`;
      expect(Object.keys(files)).toContain(name);
      const folder = mkdtempSync(join(tmpdir(), "ext-scaffold-test-"));
      const file = join(folder, TEST_FILES[runner].file);
      writeFileSync(file, files[name] as string);
      const checked = spawnSync("node", ["--check", file], { encoding: "utf8" });
      expect({ runner, stderr: checked.stderr, status: checked.status }).toEqual({ runner, stderr: "", status: 0 });
      const text = files[name] as string;
      if (runner === "node") expect(text).toContain('from "node:test"');
      if (runner === "vitest") expect(text).toContain('from "vitest"');
      if (runner === "jest") expect(text).toContain('require("ext-emulator")');
      const manifest = JSON.parse(files["package.json"] as string);
      expect(manifest.scripts.test).toBe(TEST_FILES[runner].script);
      if (runner !== "node") expect(manifest.devDependencies[runner]).toMatch(/^\^\d+\.\d+\.\d+$/);
    });
  }
});
