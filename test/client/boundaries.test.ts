/**
 * One way to the server: the CLI, the dashboard and the Node package call the API through client/ only, and
 * client/ stands alone (it imports nothing from the server, the tools, the dashboard or the packaging; only what
 * both sides share, common/).
 */
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");
const SOURCE = /\.(ts|tsx|js|cjs|mjs)$/;

function files(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && SOURCE.test(e.name) && !e.parentPath.includes("node_modules"))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)));
}

/** What makes an HTTP call without the client: fetch, EventSource, XMLHttpRequest, Node's http modules. */
const DIRECT_CALL = [
  /\bfetch\s*\(/,
  /\bEventSource\b/,
  /\bXMLHttpRequest\b/,
  /\bhttps?\.(request|get)\s*\(/,
  /["'](node:)?https?["']/,
  /["'](node:)?http2["']/,
];

/**
 * The callers of the API. The tools' transport (tools/calls/) and the parity tools (tools/conformance/, which
 * also serve a proxy) hold to the one transport instead (test/meta/one-transport.test.ts).
 */
const CALLERS = ["tools/cli", "tools/deploy", "tools/helper", "ui", "packaging"];

/** Files allowed a direct call, each for a reason. */
const EXCEPTIONS: Record<string, string> = {
  "ui/src/api.ts":
    "the page's one fetch, handed to both typed clients as their transport (pageFetch): it sends nothing once the server has ended",
};

/**
 * Still being moved onto client/ on other branches; this list is emptied when they are merged.
 * Nothing may be added to it.
 */
const MIGRATING: Record<string, string> = {};

test("no API call outside client/ in the CLI, the deploy core, the Bun helper, ui/ and packaging/", () => {
  const offenders: string[] = [];
  for (const file of CALLERS.flatMap(files)) {
    if (file in EXCEPTIONS || file in MIGRATING) continue;
    const text = readFileSync(join(ROOT, file), "utf8");
    text.split("\n").forEach((line, i) => {
      if (DIRECT_CALL.some((re) => re.test(line))) offenders.push(`${file}:${i + 1}: ${line.trim()}`);
    });
  }
  expect(offenders).toEqual([]);
});

test("every allowed file still exists (a stale entry would hide a new file of the same name)", () => {
  const all = new Set(CALLERS.flatMap(files));
  for (const file of [...Object.keys(EXCEPTIONS), ...Object.keys(MIGRATING)]) expect(all.has(file), file).toBe(true);
});

test("client/ imports only its own files, what both sides share (common/) and openapi-fetch", () => {
  const imports: string[] = [];
  for (const file of files("client")) {
    const text = readFileSync(join(ROOT, file), "utf8");
    for (const m of text.matchAll(/(?:from|import)\s*\(?\s*["']([^"']+)["']/g)) imports.push(`${file}: ${m[1]}`);
  }
  expect(imports.length).toBeGreaterThan(0);
  expect(imports.filter((i) => !/: (\.\/[\w-]+|\.\.\/common\/[\w/-]+|openapi-fetch)$/.test(i))).toEqual([]);
});

test("client/ has no `any` outside comments, the generated types included", () => {
  const found: string[] = [];
  for (const file of files("client")) {
    const code = readFileSync(join(ROOT, file), "utf8")
      .replace(/\/\*[\s\S]*?\*\//g, "")
      .replace(/\/\/.*$/gm, "");
    for (const line of code.split("\n")) if (/\bany\b/.test(line)) found.push(`${file}: ${line.trim()}`);
  }
  expect(found).toEqual([]);
});
