/**
 * The front door and its pages: the README stays short and links every docs/ page; every relative link of the
 * README and the docs resolves in the repository (a file that exists; an anchor a heading of that page makes);
 * and the same pages, as the npm package ships them (scripts/lib/package-docs.ts), link only to files the
 * package holds or to the repository's web address.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, posix, resolve } from "node:path";
import { packagedMarkdown, shippedPages } from "../../scripts/lib/package-docs";

const ROOT = resolve(import.meta.dir, "../..");
const read = (page: string) => readFileSync(join(ROOT, page), "utf8");

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as dashes. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\- _]/gu, "")
    .replace(/ /g, "-");

/** The anchors a page's headings make (and explicit `<a id>`s), outside code blocks. */
function anchors(markdown: string): Set<string> {
  const found = new Set<string>();
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (line.startsWith("```")) fenced = !fenced;
    if (fenced) continue;
    const heading = /^#{1,6} (.*)$/.exec(line);
    if (heading) found.add(slug(heading[1]!));
    for (const id of line.matchAll(/<a id="([^"]+)"><\/a>/g)) found.add(id[1]!);
  }
  return found;
}

/** Every link target of a page's text (code blocks left out). */
function links(markdown: string): string[] {
  let fenced = false;
  return markdown.split("\n").flatMap((line) => {
    if (line.startsWith("```")) fenced = !fenced;
    return fenced ? [] : [...line.matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
  });
}

const isAbsolute = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target);

/** The broken relative links of `page` in the tree rooted at `root` (each as `page: target`). */
function brokenLinks(root: string, page: string, markdown: string): string[] {
  return links(markdown).flatMap((target) => {
    if (isAbsolute(target)) return [];
    const [path, anchor] = target.split("#", 2) as [string, string | undefined];
    const file = path === "" ? page : posix.normalize(posix.join(posix.dirname(page), path));
    const full = join(root, file);
    if (file.startsWith("..") || !existsSync(full)) return [`${page}: ${target}`];
    if (anchor === undefined || !file.endsWith(".md") || statSync(full).isDirectory()) return [];
    return anchors(readFileSync(full, "utf8")).has(anchor) ? [] : [`${page}: ${target} (no such heading)`];
  });
}

describe("the README and the docs pages", () => {
  const pages = shippedPages();

  test("the README is at most 300 lines and links every docs page", () => {
    const readme = read("README.md");
    expect(readme.split("\n").length).toBeLessThanOrEqual(301); // the last line ends with a newline
    const docs = readdirSync(join(ROOT, "docs")).filter((f) => f.endsWith(".md"));
    expect(docs).toContain("cli.md");
    const linked = new Set(links(readme).map((t) => t.split("#")[0]));
    expect(docs.filter((f) => !linked.has(`docs/${f}`))).toEqual([]);
  });

  test("every relative link resolves in the repository, anchors included", () => {
    expect(pages.length).toBeGreaterThan(10);
    expect(pages.flatMap((page) => brokenLinks(ROOT, page, read(page)))).toEqual([]);
    // The check sees what it must.
    expect(brokenLinks(ROOT, "docs/cli.md", "[x](configuration.md#no-such-heading)")).toHaveLength(1);
    expect(brokenLinks(ROOT, "docs/cli.md", "[x](../no-such-file.md)")).toHaveLength(1);
    expect(brokenLinks(ROOT, "docs/cli.md", "[x](configuration.md#secrets-and-the-banner)")).toEqual([]);
  });

  test("every file of the repository a page names in code (`server/…/x.ts`) exists: moved code takes its docs along", () => {
    const named = (text: string) =>
      [
        ...text.matchAll(
          /`((?:server|tools|common|client|packaging|scripts|bench|ui|examples|fixtures)\/[\w./-]+\.[a-z]+)`/g,
        ),
      ].map((m) => m[1]!);
    const missing = pages.flatMap((page) =>
      named(read(page))
        .filter((path) => !existsSync(join(ROOT, path)))
        .map((path) => `${page}: ${path}`),
    );
    expect(missing).toEqual([]);
    // The check sees what it must.
    expect(named("see `server/no/such-file.ts` and `tools/cli/main.ts`")).toEqual([
      "server/no/such-file.ts",
      "tools/cli/main.ts",
    ]);
  });

  test("as the package ships them, a link goes inside the package or to the repository's web address", () => {
    // What the package holds besides the pages (scripts/lib/node-helper.ts): the CI recipes, the schemas, LICENSE.
    const shipped = (path: string) =>
      pages.includes(path) ||
      path === "LICENSE" ||
      path.startsWith("examples/ci") ||
      /^docs\/[a-z]+\.schema\.json$/.test(path);
    for (const page of pages) {
      const packaged = packagedMarkdown(read(page), page, shipped);
      for (const target of links(packaged)) {
        if (isAbsolute(target)) continue;
        const [path] = target.split("#", 1) as [string];
        const file = path === "" ? page : posix.normalize(posix.join(posix.dirname(page), path));
        expect([page, target, shipped(file)]).toEqual([page, target, true]);
      }
    }
    // A link to a file only the repository has becomes its address; an image one GitHub serves.
    expect(packagedMarkdown("[r](../bench/results/latest.md#x)", "docs/benchmarks.md", shipped)).toBe(
      "[r](https://github.com/ext-emulator/ext/blob/main/bench/results/latest.md#x)",
    );
    expect(packagedMarkdown("![a](screenshots/admin.png)", "docs/dashboard.md", shipped)).toBe(
      "![a](https://github.com/ext-emulator/ext/blob/main/docs/screenshots/admin.png?raw=true)",
    );
    expect(packagedMarkdown("[c](cli.md#ext-serve)", "docs/testing.md", shipped)).toBe("[c](cli.md#ext-serve)");
  });
});
