/**
 * The main npm package's front door is the repository's: its README.md is the repository's README.md and its
 * docs/ the repository's docs pages, written at pack time (one source, never a second text). A relative link
 * to a file the package ships (the pages, the example setups, the bench results) stays relative, so it works
 * offline in `node_modules/ext-emulator/`; a link to a file only the repository has (the workflows, the
 * screenshots: 3 MB no install needs) becomes its address on GitHub. The test of the package (test/packaging/root-package.slow.test.ts) holds every link to resolving.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, posix, relative } from "node:path";
import rootPkg from "../../package.json" with { type: "json" };
import { ROOT } from "./compile";

/** Where a repository file is read on the web: the repository's own address, on its main branch. */
const WEB = `${rootPkg.repository.url.replace(/^git\+/, "").replace(/\.git$/, "")}/blob/main`;

/** The pages the package ships, by their path in the repository (and in the package). */
export function shippedPages(): string[] {
  const docs = readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => `docs/${f}`);
  return ["README.md", ...docs];
}

/** A Markdown link or image: `[text](target)`, `![alt](target)`; the target has no spaces. */
const LINK = /(!?\[[^\]]*\]\()([^)\s]+)(\))/g;

/**
 * `markdown`, a page at `page` (a repository path), with each relative link to something `shipped` does not
 * hold turned into its repository address; links within the package, anchors and absolute URLs are kept.
 */
export function packagedMarkdown(markdown: string, page: string, shipped: (path: string) => boolean): string {
  let fenced = false;
  return markdown
    .split("\n")
    .map((line) => {
      if (line.startsWith("```")) fenced = !fenced;
      if (fenced) return line;
      return line.replace(LINK, (whole, open: string, target: string, close: string) => {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("#")) return whole;
        const [path, anchor] = target.split("#", 2) as [string, string | undefined];
        const inRepo = posix.normalize(posix.join(posix.dirname(page), path)).replace(/\/$/, "");
        if (shipped(inRepo)) return whole;
        const image = open.startsWith("!");
        return `${open}${WEB}/${inRepo}${image ? "?raw=true" : anchor !== undefined ? `#${anchor}` : ""}${close}`;
      });
    })
    .join("\n");
}

/**
 * Writes README.md and docs/ (the pages and the JSON Schemas they link) into the package folder `dir`, which
 * already holds what else the package ships (examples/ci, LICENSE).
 */
export function writePackageDocs(dir: string): void {
  mkdirSync(join(dir, "docs"), { recursive: true });
  for (const f of readdirSync(join(ROOT, "docs")))
    if (f.endsWith(".schema.json")) copyFileSync(join(ROOT, "docs", f), join(dir, "docs", f));
  const pages = shippedPages();
  const shipped = (path: string) =>
    pages.includes(path) || (existsSync(join(dir, path)) && !relative(dir, join(dir, path)).startsWith(".."));
  for (const page of pages) {
    const out = join(dir, page);
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, packagedMarkdown(readFileSync(join(ROOT, page), "utf8"), page, shipped));
  }
}
