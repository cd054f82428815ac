/**
 * The layout's two sides: the emulator (server/) and the tools that talk to one (tools/), with what both read
 * in common/ and the one way to call a server in client/. This fails when
 * - server/ imports from tools/, client/, ui/ or packaging/ (the server never reaches for the tools' side;
 *   `ext image` embeds packaging/'s Containerfile, so tools/ may read packaging/);
 * - tools/ imports from server/ anything but its public entry, server/index.ts (a tool starts a server, or runs
 *   a check the server runs, only through it);
 * - common/ imports from server/, tools/, client/, ui/ or packaging/ (it stands alone, so both sides can read it);
 * - client/ imports from server/ or tools/.
 * Relative imports only: a package name cannot reach into the tree.
 */
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");
const SOURCE = /\.(ts|tsx|js|mjs|cjs)$/;

/** What each folder may not import, and the one file of a forbidden folder it may. */
const RULES: { from: string; not: string[]; except?: string[] }[] = [
  { from: "server", not: ["tools", "client", "ui", "packaging"] },
  { from: "tools", not: ["server", "ui"], except: ["server/index.ts"] },
  { from: "common", not: ["server", "tools", "client", "ui", "packaging"] },
  { from: "client", not: ["server", "tools", "ui", "packaging"] },
];

function files(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: "utf8" })
    .filter((f) => SOURCE.test(f) && !f.split("/").includes("node_modules"))
    .map((f) => join(dir, f));
}

const within = (path: string, dir: string) => path === dir || path.startsWith(`${dir}/`);

/** The relative imports of `text` (the file at `file`) that break its folder's rule, as `file: specifier`. */
export function forbiddenImports(file: string, text: string): string[] {
  const rule = RULES.find((r) => within(file, r.from));
  if (!rule) return [];
  const found: string[] = [];
  for (const m of text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)) {
    const target = relative(ROOT, resolve(ROOT, dirname(file), m[1]!));
    if (!rule.not.some((dir) => within(target, dir))) continue;
    const allowed = (rule.except ?? []).some((e) => target === e || `${target}.ts` === e || `${target}/index.ts` === e);
    if (!allowed) found.push(`${file}: ${m[1]}`);
  }
  return found;
}

test("each kind of crossing is seen, and the public entry is let through (the check can fail)", () => {
  expect(forbiddenImports("server/start/app.ts", 'import { x } from "../../tools/calls/http";')).toEqual([
    "server/start/app.ts: ../../tools/calls/http",
  ]);
  expect(forbiddenImports("server/auth/keys.ts", 'const m = await import("../../client/index");')).toEqual([
    "server/auth/keys.ts: ../../client/index",
  ]);
  expect(
    forbiddenImports("tools/cli/commands/serve.ts", 'import { startServer } from "../../../server/start/server";'),
  ).toEqual(["tools/cli/commands/serve.ts: ../../../server/start/server"]);
  expect(forbiddenImports("tools/cli/commands/serve.ts", 'import { startServer } from "../../../server";')).toEqual([]);
  expect(forbiddenImports("tools/helper/index.ts", 'export { createApp } from "../../server/index";')).toEqual([]);
  expect(forbiddenImports("common/json/json-reader.ts", 'import { x } from "../../server/schema/schema";')).toEqual([
    "common/json/json-reader.ts: ../../server/schema/schema",
  ]);
  expect(forbiddenImports("client/index.ts", 'import { x } from "../tools/config";')).toEqual([
    "client/index.ts: ../tools/config",
  ]);
  expect(forbiddenImports("client/index.ts", 'import { x } from "../common/text/text-length";')).toEqual([]);
});

test("server/, tools/, common/ and client/ import only across the lines the layout allows", () => {
  const all = RULES.flatMap((r) => files(r.from));
  expect(all.length).toBeGreaterThan(200);
  expect(all).toContain("server/index.ts");
  expect(all.flatMap((file) => forbiddenImports(file, readFileSync(join(ROOT, file), "utf8")))).toEqual([]);
});
