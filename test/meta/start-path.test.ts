/**
 * What `ext serve` loads before it listens: the modules its entry reaches through static imports. Packages a
 * start never uses (the archive reader and writer, the multipart parser, gzip, the OpenAPI generator, the docs
 * UI) are loaded by the first request that needs them, so they must stay behind a dynamic import; so must the
 * parts of the app built on first use (server/start/app.ts): the control plane, the dashboard and the docs.
 * Nor does a start load Node's stream machinery, which each of node:stream, node:crypto, node:net and node:tty
 * brings (several milliseconds): the server hashes with server/base/crypto.ts.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";

const ROOT = join(import.meta.dir, "../..");
const transpiler = new Bun.Transpiler({ loader: "ts" });

const seen = new Set<string>();

/** Every package or built-in the file reaches by static imports (type-only ones are not imports at run time). */
function staticReach(entry: string): Map<string, string> {
  const reached = new Map<string, string>();
  seen.clear();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    // An entry's `#!` line is not TypeScript.
    for (const { path, kind } of transpiler.scanImports(readFileSync(file, "utf8").replace(/^#!.*\n/, ""))) {
      if (kind !== "import-statement") continue;
      if (!path.startsWith(".")) {
        if (!reached.has(path)) reached.set(path, file.slice(ROOT.length + 1));
        continue;
      }
      const resolved = Bun.resolveSync(path, dirname(file));
      if (/\.tsx?$/.test(resolved)) queue.push(resolved);
    }
  }
  return reached;
}

const NOT_AT_START = [
  "tar-stream",
  "@fastify/busboy",
  "node:zlib",
  "ignore",
  "@elysiajs/openapi",
  "@scalar/api-reference",
  "node:stream",
  "node:crypto",
  "node:net",
  "node:tty",
];

test("ext serve reaches none of the packages only some requests use through a static import", () => {
  const reached = staticReach(join(ROOT, "tools/cli/commands/serve.ts"));
  // The walk itself works: the server's own packages are reached.
  expect(reached.has("elysia")).toBe(true);
  expect(reached.has("drizzle-orm/bun-sqlite")).toBe(true);
  const found = NOT_AT_START.filter((name) => reached.has(name)).map((name) => `${name} (from ${reached.get(name)})`);
  expect(found).toEqual([]);
});

test("the CLI's entry, which every command loads, reaches no built-in that only some commands use", () => {
  const reached = staticReach(join(ROOT, "tools/cli/main.ts"));
  expect(reached.has("citty")).toBe(true);
  const heavy = [...NOT_AT_START, "node:child_process"].filter((name) => reached.has(name));
  expect(heavy.map((name) => `${name} (from ${reached.get(name)})`)).toEqual([]);
});

const PARTS_ON_FIRST_USE = ["server/control-plane/routes.ts", "server/dashboard/routes.ts", "server/docs/openapi.ts"];

test("ext serve reaches none of the app's parts built on first use through a static import", () => {
  staticReach(join(ROOT, "tools/cli/commands/serve.ts"));
  const files = [...seen].map((file) => file.slice(ROOT.length + 1));
  // The walk itself works: the app and its developer API are reached.
  expect(files).toContain("server/start/app.ts");
  expect(files).toContain("server/resources/extensions/routes.ts");
  expect(PARTS_ON_FIRST_USE.filter((part) => files.includes(part))).toEqual([]);
});
