/**
 * /openapi.json (the document, built from the routes' `t` schemas) and /docs (Scalar UI). The UI script is
 * embedded in the binary and served from /docs/scalar.js: the docs work with no network, no CDN.
 */
import { openapi } from "@elysiajs/openapi";
import { Elysia } from "elysia";
// Not in the package's export map, so imported by path; Bun embeds it as text.
import scalarScript from "../../node_modules/@scalar/api-reference/dist/browser/standalone.js" with { type: "text" };
import pkg from "../../package.json" with { type: "json" };
import { API_PREFIX } from "../config";

export const OPENAPI_PATH = "/openapi.json";
export const DOCS_PATH = "/docs";

export function docsPlugin() {
  return new Elysia({ name: "docs" })
    .get(
      `${DOCS_PATH}/scalar.js`,
      () => new Response(scalarScript, { headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "public, max-age=86400" } }),
      { detail: { hide: true } },
    )
    .use(
      openapi({
        path: DOCS_PATH,
        specPath: OPENAPI_PATH,
        provider: "scalar",
        // Offline: no fonts from a CDN, no telemetry, and none of Scalar's cloud features (AI agent, MCP
        // generator, deploy/share toolbar), which need its servers.
        scalar: {
          cdn: `${DOCS_PATH}/scalar.js`,
          withDefaultFonts: false,
          hideClientButton: true,
          telemetry: false,
          showDeveloperTools: "never",
          agent: { disabled: true },
          mcp: { disabled: true },
        } as never,
        documentation: {
          info: {
            title: "ext — Developer REST API emulator",
            version: pkg.version,
            description:
              `Local emulator of the platform's Developer REST API for extensions. The developer API lives under \`${API_PREFIX}\` ` +
              "and needs `Authorization: Bearer <DEVELOPER_API_KEY>`. The emulator's control plane (tag *Emulator*) lives under `/_emulator`. " +
              "Every error is `{error:{code,message,status}}`.",
          },
          tags: [
            { name: "Extensions", description: "Create, read, update and delete extensions" },
            { name: "Versions", description: "Submit version bundles and list versions" },
            { name: "Installs", description: "Aggregate install statistics" },
            { name: "Secrets", description: "Write-only secret values, listable names" },
            { name: "Limits", description: "Limits resolved for an extension" },
            { name: "Emulator", description: "The emulator's control plane: seed, reset, review, clock, faults (not part of the platform API)" },
            { name: "Health", description: "Liveness" },
          ],
          components: {
            securitySchemes: {
              bearerAuth: { type: "http", scheme: "bearer", description: "Developer API key" },
              adminToken: { type: "http", scheme: "bearer", description: "Emulator admin token (control plane, non-loopback binds only)" },
            },
          },
        },
      }),
    );
}
