/**
 * `npm run test:fast` leaves out `*.slow.test.ts`: the files built around the compiled binary (end-to-end runs of
 * the product), a real browser, an outside tool or a whole archive corpus. A file that takes the binary with
 * buildBinary() or starts a browser under another name would slip into the edit loop and make it slow, so the
 * name is checked against what the file uses. (A fast test that runs one CLI command takes the same shared binary
 * through extBinary(): cheaper than a start from source, docs/development.md.)
 */
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");
/** What makes a file slow whatever else it does: the shared compiled binary, or Chromium. */
const SLOW_USES = /\bbuildBinary\(|\blaunchBrowser\(/;

export function misnamed(files: { path: string; source: string }[]): string[] {
  return files.filter((f) => SLOW_USES.test(f.source) && !f.path.endsWith(".slow.test.ts")).map((f) => f.path);
}

function testFiles(): { path: string; source: string }[] {
  return (
    readdirSync(join(ROOT, "test"), { recursive: true, encoding: "utf8" })
      // This file names both calls in its own examples.
      .filter((name) => name.endsWith(".test.ts") && name !== join("meta", "slow-tests.test.ts"))
      .map((name) => join(ROOT, "test", name))
      .map((path) => ({ path: relative(ROOT, path), source: readFileSync(path, "utf8") }))
  );
}

test("every test file that builds the binary or starts a browser is named *.slow.test.ts", () => {
  expect(misnamed(testFiles())).toEqual([]);
});

test("the check can fail: a file using the binary under a plain name is reported", () => {
  const files = [
    { path: "test/x/uses-binary.test.ts", source: "beforeAll(() => { built = buildBinary(); });" },
    { path: "test/x/uses-browser.slow.test.ts", source: "browser = await launchBrowser();" },
    { path: "test/x/plain.test.ts", source: "expect(1).toBe(1);" },
  ];
  expect(misnamed(files)).toEqual(["test/x/uses-binary.test.ts"]);
});
