/**
 * Which test runner the project around a new extension folder uses, so `ext init` writes a test that runner
 * picks up and can run: vitest and jest both collect every `*.test.*` file below them by default, and fail on
 * a `node:test` file ("No test suite found"). Read from the nearest package.json above the folder: a runner
 * named in its test script or its dependencies; none found, Node's own `node --test`. Only the runner's NAME is
 * taken from there: the version the new package.json asks for is ours (a range copied from a file someone else
 * may have written could be `file:` or `git+https:` another user's code).
 */
import { dirname, join } from "node:path";
import { readJsonFile } from "../../../common/json/json-reader";

export type TestRunner = "node" | "vitest" | "jest";
export const TEST_RUNNERS: readonly TestRunner[] = ["node", "vitest", "jest"];

/** Per runner: the test file's name, the scaffold's test script, and what it adds to devDependencies. */
export const TEST_FILES: Record<TestRunner, { file: string; script: string; devDependencies: Record<string, string> }> =
  {
    node: { file: "extension.test.mjs", script: "node --test test/", devDependencies: {} },
    // The versions the examples (examples/vitest, examples/jest) lock and CI runs.
    vitest: { file: "extension.test.mjs", script: "vitest run", devDependencies: { vitest: "^4.1.12" } },
    jest: { file: "extension.test.cjs", script: "jest", devDependencies: { jest: "^30.5.2" } },
  };

/** A package.json is small; a larger one is not read (and not believed). */
const PACKAGE_JSON_MAX_BYTES = 1024 * 1024;

export interface FoundRunner {
  runner: TestRunner;
  /** The package.json it was read from; absent when none names a runner. */
  from?: string;
}

/** The runner of the nearest package.json above `dir` (not `dir` itself: `ext init` makes it new). */
export function detectTestRunner(dir: string): FoundRunner {
  for (let at = dirname(dir); ; at = dirname(at)) {
    const file = join(at, "package.json");
    const manifest = readManifest(file);
    if (manifest !== undefined) {
      const runner = runnerOf(manifest);
      return runner ? { runner, from: file } : { runner: "node" };
    }
    if (dirname(at) === at) return { runner: "node" };
  }
}

function readManifest(file: string): Record<string, unknown> | undefined {
  try {
    const value = readJsonFile(file, PACKAGE_JSON_MAX_BYTES);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

const DEPENDENCY_FIELDS = ["devDependencies", "dependencies", "peerDependencies"];

function runnerOf(manifest: Record<string, unknown>): TestRunner | undefined {
  const scripts = manifest.scripts as Record<string, unknown> | undefined;
  const testScript = typeof scripts?.test === "string" ? scripts.test : "";
  for (const runner of ["vitest", "jest"] as const) if (new RegExp(`\\b${runner}\\b`).test(testScript)) return runner;
  for (const runner of ["vitest", "jest"] as const)
    if (DEPENDENCY_FIELDS.some((field) => Object.hasOwn((manifest[field] as object | undefined) ?? {}, runner)))
      return runner;
  return undefined;
}
