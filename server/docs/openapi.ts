/**
 * /openapi.json (the document, built from the routes' `t` schemas) and /docs (Scalar UI). The UI script is
 * embedded in the binary and served from /docs/scalar.js: the docs work with no network, no CDN.
 *
 * The document is made by @elysiajs/openapi's `toOpenAPISchema`, loaded on the first request for it: the
 * package, with its schema converters, is large, and evaluating it with the plugin's routes would weigh on
 * every cold start. What the plugin would add around it (info defaults, tags, the
 * merge of our `documentation`) is done here the same way; then server/docs/post-process.ts applies what the
 * generator cannot be told. So the document is the plugin's, post-processed, and nothing hand-written.
 */

// The page template only: a small module, unlike the package's main entry.
import { ScalarRender } from "@elysiajs/openapi/scalar";
import { type AnyElysia, Elysia } from "elysia";
import { API_PREFIX, DEFAULT_HOST, DEFAULT_PORT } from "../../common/addresses";
import { DOCS_PATH, OPENAPI_PATH } from "../../common/dashboard-links";
import pkg from "../../package.json" with { type: "json" };
import { sha256 } from "../base/crypto";
import { withPageExtras } from "./page-extras";
import { postProcessDocument } from "./post-process";

export { OPENAPI_PATH };

const OPENAPI_VERSION = "3.1.2";

/**
 * The Scalar UI script (several MB), embedded in the binary as text and loaded on its first request. Not in the
 * package's export map, so imported by path.
 */
const scalarScript = async (): Promise<string> =>
  (await import("../../node_modules/@scalar/api-reference/dist/browser/standalone.js", { with: { type: "text" } }))
    .default;

export const documentation = {
  info: {
    title: "ext — Developer REST API emulator",
    version: pkg.version,
    description:
      `Local emulator of the platform's Developer REST API for extensions. The developer API lives under \`${API_PREFIX}\` ` +
      "and needs `Authorization: Bearer <DEVELOPER_API_KEY>`. The emulator's control plane (tag *Emulator*) lives under `/_emulator`. " +
      "Every error is `{error:{code,message,status}}`. Every answer carries `X-Content-Type-Options: nosniff` and " +
      "`Content-Security-Policy: default-src 'none'; frame-ancestors 'none'` (not repeated on each response below).",
    // The project's license (LICENSE), by its SPDX identifier, as OpenAPI 3.1 asks.
    license: { name: "MIT", identifier: "MIT" },
  },
  servers: [{ url: `http://${DEFAULT_HOST}:${DEFAULT_PORT}`, description: "`ext serve` with its default address" }],
  tags: [
    { name: "Extensions", description: "Create, read, update and delete extensions" },
    { name: "Versions", description: "Submit version bundles and list versions" },
    { name: "Installs", description: "Aggregate install statistics" },
    { name: "Secrets", description: "Write-only secret values, listable names" },
    { name: "Limits", description: "Limits resolved for an extension" },
    {
      name: "Emulator",
      description: "The emulator's control plane: seed, reset, review, clock, faults (not part of the platform API)",
    },
    { name: "Health", description: "Liveness" },
  ],
  // Redoc-style grouping: the platform's API apart from the emulator's own endpoints.
  "x-tagGroups": [
    { name: "Developer API", tags: ["Extensions", "Versions", "Installs", "Secrets", "Limits"] },
    { name: "Emulator", tags: ["Emulator", "Health"] },
  ],
  components: {
    // Two APIs, two credentials, both sent in `Authorization`. Generators pick the credential by the scheme's
    // type (hey-api's `auth` callback, orval, openapi-generator): two `http bearer` schemes cannot be told
    // apart, so one would be sent to both APIs. The developer key is `http bearer`; the admin token is an
    // `apiKey` in the `Authorization` header, whose value the client gives whole: `Bearer <ADMIN_TOKEN>`.
    securitySchemes: {
      bearerAuth: {
        type: "http",
        scheme: "bearer",
        description: "Developer API key: `Authorization: Bearer <DEVELOPER_API_KEY>`",
      },
      adminToken: {
        type: "apiKey",
        in: "header",
        name: "Authorization",
        description:
          "The emulator's admin token, for the control plane (`/_emulator`), required on every bind (loopback included): `Authorization: Bearer <ADMIN_TOKEN>` (the value is the whole header, `Bearer ` included). `--admin-token`/`EXT_ADMIN_TOKEN`, else generated at start and kept in the data directory's private `server.json` and the ready file. A developer API key never opens the control plane, nor the admin token the developer API.",
      },
      dashboardSession: {
        type: "apiKey",
        in: "header",
        name: "X-Ext-Session",
        description:
          "The dashboard's session secret: a login (`POST /dashboard/login` with a one-time code from `POST /_emulator/dashboard-login` in a form body, as the page `ext dashboard` opens posts it; never in a URL) redirects to `/#session=<secret>`; the dashboard keeps it in its own origin's storage and sends it as `X-Ext-Session: <secret>`. Accepted from this server's own pages only (same-origin); no cookie is ever accepted.",
      },
    },
  },
};

/** The document as the @elysiajs/openapi plugin assembles it around the generated paths and schemas. */
export function pluginDocument(paths: object, schemas: object | undefined) {
  return {
    ...documentation,
    openapi: OPENAPI_VERSION,
    tags: documentation.tags,
    // The plugin's key order: its defaults (title, description, version), then ours over them.
    info: {
      title: documentation.info.title,
      description: documentation.info.description,
      version: documentation.info.version,
      license: documentation.info.license,
    },
    paths: { ...paths },
    components: { ...documentation.components, schemas: { ...schemas } },
  };
}

/** The Scalar page, offline: no fonts from a CDN, no telemetry, none of Scalar's cloud features (AI agent,
 * MCP generator, deploy/share toolbar), which need its servers; plus a loading note and the key handoff
 * (server/docs/page-extras.ts). */
function docsPage(): string {
  const page = ScalarRender(
    documentation.info as never,
    {
      url: OPENAPI_PATH.slice(1),
      version: "latest",
      cdn: `${DOCS_PATH}/scalar.js`,
      withDefaultFonts: false,
      hideClientButton: true,
      telemetry: false,
      showDeveloperTools: "never",
      agent: { disabled: true },
      mcp: { disabled: true },
      _integration: "elysiajs",
    } as never,
  );
  return withPageExtras(page, `${DOCS_PATH}/scalar.js`);
}

/**
 * /docs may not be framed: a page that framed it would send requests the control plane counts as same-origin.
 * The Scalar page needs its inline style blocks (and injects more); its scripts are /docs/scalar.js and the
 * page's own inline elements, allowed by their hashes only.
 */
function docsHeaders(page: string): Record<string, string> {
  const inline = [...page.matchAll(/<script(?![^>]*\ssrc=)[^>]*>([\s\S]*?)<\/script>/g)].map(
    (m) => `'sha256-${sha256(m[1]!).toString("base64")}'`,
  );
  const csp = [
    "default-src 'none'",
    ["script-src 'self'", ...inline].join(" "),
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "worker-src 'self' blob:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
  return {
    "content-type": "text/html; charset=utf8",
    "content-security-policy": csp,
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
  };
}

/**
 * /docs, its script and /openapi.json. `everyRoute` builds an app holding every route of the emulator (the
 * document describes them all, whichever parts the server has built so far); `listeningAt` is the address the
 * request reached the server at (the Host it was sent to, already checked), null for a document built in process.
 */
export function docsPlugin(everyRoute: () => Promise<AnyElysia>, listeningAt: (request: Request) => string | null) {
  const page = docsPage();
  const headers = docsHeaders(page);
  let document: Promise<object> | null = null;
  const build = async () => {
    const [{ toOpenAPISchema }, app] = await Promise.all([import("@elysiajs/openapi"), everyRoute()]);
    const { paths, components } = toOpenAPISchema(app, undefined, undefined, undefined, OPENAPI_VERSION);
    return postProcessDocument(pluginDocument(paths, components.schemas));
  };
  return new Elysia({ name: "docs" })
    .get(
      `${DOCS_PATH}/scalar.js`,
      async () =>
        new Response(await scalarScript(), {
          headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "public, max-age=86400" },
        }),
      { detail: { hide: true } },
    )
    .get(DOCS_PATH, () => new Response(page, { headers }), {
      detail: { hide: true },
    })
    .get(
      OPENAPI_PATH,
      async ({ request }) => {
        // Made once (the routes do not change once the app is built); a failure is tried again next time.
        if (!document) {
          document = build();
          document.catch(() => (document = null));
        }
        const body = await document;
        // A listening server names the address it was reached at, so the docs UI's "try it" reaches it on any
        // port and from the dashboard's own origin (same-origin: the handed key goes nowhere else); the document
        // built in process (`ext openapi`) keeps the default one.
        const url = listeningAt(request);
        return url === null ? body : { ...body, servers: [{ url, description: "This emulator" }] };
      },
      { detail: { hide: true } },
    );
}
