/**
 * Builds the dashboard (ui/, Preact) with Bun's bundler into memory: hashed JS and CSS files and the page
 * that loads them. `npm run build` embeds the result in the binary (scripts/build.ts); from a checkout
 * (`npm start`, tests calling createApp) it runs on the first request for the dashboard instead.
 */
import { join } from "node:path";

export interface DashboardFile {
  contentType: string;
  body: string;
}

export interface DashboardAssets {
  /** "/ui/main-abc123.js" → file. */
  files: Record<string, DashboardFile>;
  indexHtml: string;
}

export const UI_PREFIX = "/ui/";

/** The dashboard's icon: inline in its page, and at /favicon.ico for the pages that are not the dashboard's. */
/** Where a browser asks every origin for its icon. */
export const FAVICON_PATH = "/favicon.ico";

export const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#0b5cad"/><path d="M9 10h14M9 16h10M9 22h14" stroke="#fff" stroke-width="3" stroke-linecap="round"/></svg>';
const FAVICON = `data:image/svg+xml,${encodeURIComponent(FAVICON_SVG)}`;

const TYPES: Record<string, string> = { ".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8" };

export async function buildDashboard(root: string): Promise<DashboardAssets> {
  const result = await Bun.build({
    entrypoints: [join(root, "ui/src/main.tsx")],
    target: "browser",
    format: "esm",
    minify: true,
    sourcemap: "none",
    naming: { entry: "[name]-[hash].[ext]", asset: "[name]-[hash].[ext]", chunk: "[name]-[hash].[ext]" },
    define: { "process.env.NODE_ENV": '"production"' },
    tsconfig: join(root, "ui/tsconfig.json"),
  } as Parameters<typeof Bun.build>[0]);
  if (!result.success) throw new Error(`dashboard build failed: ${result.logs.map((l) => l.message).join("; ")}`);
  const files: Record<string, DashboardFile> = {};
  const scripts: string[] = [];
  const styles: string[] = [];
  for (const output of result.outputs) {
    const name = output.path.split(/[\\/]/).pop()!;
    const ext = name.slice(name.lastIndexOf("."));
    const contentType = TYPES[ext];
    if (!contentType) continue;
    files[UI_PREFIX + name] = { contentType, body: await output.text() };
    (ext === ".js" ? scripts : styles).push(UI_PREFIX + name);
  }
  const indexHtml = [
    "<!doctype html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    "<title>ext emulator dashboard</title>",
    // Inline, so no request for /favicon.ico (which would 404 in every console); the policy allows data: images.
    `<link rel="icon" href="${FAVICON}">`,
    ...styles.map((href) => `<link rel="stylesheet" href="${href}">`),
    ...scripts.map((src) => `<script type="module" src="${src}"></script>`),
    "</head>",
    "<body>",
    '<div id="app"></div>',
    "<noscript>The dashboard needs JavaScript; the control plane is also plain JSON under /_emulator.</noscript>",
    "</body>",
    "</html>",
  ].join("\n");
  return { files, indexHtml };
}
