/**
 * The server and the shared client sit below the tools built on them: nothing under src/ or client/ imports
 * from cli/ (the command line), ui/ (the dashboard) or packaging/. What a tool and the server share (the
 * deploy core, the call layer) lives under src/, where both can import it.
 */
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");
const SOURCE = /\.(ts|tsx|js|mjs|cjs)$/;
const LOWER = ["src", "client"];
const HIGHER = ["cli", "ui", "packaging"];

function files(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: "utf8" })
    .filter((f) => SOURCE.test(f) && !f.split("/").includes("node_modules"))
    .map((f) => join(dir, f));
}

/** The relative imports of `text` (a file at `file`) that land in a higher folder, as `file: specifier`. */
export function upwardImports(file: string, text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)) {
    const target = relative(ROOT, resolve(ROOT, dirname(file), m[1]!));
    if (HIGHER.some((dir) => target === dir || target.startsWith(`${dir}/`))) found.push(`${file}: ${m[1]}`);
  }
  return found;
}

test("an import from src/ into cli/ is seen (the check can fail)", () => {
  expect(upwardImports("src/programmatic-deploy.ts", 'import { deploy } from "../cli/lib/deploy";')).toEqual([
    "src/programmatic-deploy.ts: ../cli/lib/deploy",
  ]);
  expect(upwardImports("src/deploy/deploy.ts", 'import { x } from "../calls/http";')).toEqual([]);
});

test("nothing under src/ or client/ imports from cli/, ui/ or packaging/", () => {
  const all = LOWER.flatMap(files);
  expect(all.length).toBeGreaterThan(50);
  expect(all.flatMap((file) => upwardImports(file, readFileSync(join(ROOT, file), "utf8")))).toEqual([]);
});
