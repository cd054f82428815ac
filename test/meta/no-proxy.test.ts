/**
 * No `new Proxy(` in shipped code: a Proxy hides what an object holds and what a call does behind traps,
 * which makes the code slow to read and to change. A plain object, or a small typed stub, says the same
 * plainly. This scans the source folders (server/ first) for the constructor call.
 */
import { expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");
const SOURCE_DIRS = ["server", "tools", "common", "client", "ui", "packaging", "examples"];
const SOURCE_FILE = /\.(ts|tsx|js|mjs|cjs)$/;

/** Each source file under `dir` (relative to the repository), node_modules left out. */
export function sourceFiles(dir: string): string[] {
  const abs = join(ROOT, dir);
  if (!existsSync(abs)) return [];
  return readdirSync(abs, { recursive: true, encoding: "utf8" })
    .filter((f) => SOURCE_FILE.test(f) && !f.split("/").includes("node_modules"))
    .map((f) => join(dir, f));
}

/** Where `new Proxy(` is constructed, as `file:line`. */
export function proxyConstructions(files: string[]): string[] {
  const found: string[] = [];
  for (const file of files) {
    const lines = readFileSync(join(ROOT, file), "utf8").split("\n");
    lines.forEach((line, i) => {
      if (/\bnew\s+Proxy\s*\(/.test(line)) found.push(`${file}:${i + 1}`);
    });
  }
  return found;
}

test("the scan sees server/ (an empty list would prove nothing)", () => {
  const files = sourceFiles("server");
  expect(files).toContain("server/start/document.ts");
  expect(files.length).toBeGreaterThan(50);
});

test("no source file constructs a Proxy", () => {
  expect(proxyConstructions(SOURCE_DIRS.flatMap(sourceFiles))).toEqual([]);
});
