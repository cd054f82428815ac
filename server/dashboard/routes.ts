/**
 * The dashboard at `/`: one HTML page and its hashed script and style sheet. Static and public (they hold no
 * data); everything the page shows it fetches from /_emulator and /developer/v1 like any client, under the
 * same gates. The Content-Security-Policy allows only this origin's own script, style and connections, so
 * even a bug that let text become markup could not load or send anything elsewhere.
 */
import { Elysia } from "elysia";
import { errors } from "../errors/catalog";
import { errorResponses } from "../errors/model";
import { t } from "../schema/schema";
import { dashboardAssets } from "./assets";
import { FAVICON_PATH, FAVICON_SVG, UI_PREFIX } from "./build";

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "media-src 'self' blob:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const SECURITY_HEADERS = {
  "content-security-policy": CSP,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
};

/** Browser files, not API: left out of the OpenAPI document. */
export function dashboardRoutes() {
  const tags = ["Dashboard"];
  return (
    new Elysia({ name: "dashboard" })
      .get(
        "/",
        async () =>
          new Response((await dashboardAssets()).indexHtml, {
            headers: { ...SECURITY_HEADERS, "content-type": "text/html; charset=utf-8", "cache-control": "no-cache" },
          }),
        {
          response: { 200: t.String({ description: "The dashboard's HTML page" }) },
          detail: {
            hide: true,
            operationId: "getDashboard",
            tags,
            summary: "The dashboard (a browser page; no auth to load it, the data it shows is behind the usual gates)",
          },
        },
      )
      // A browser asks every page's origin for /favicon.ico: a JSON answer shown in a tab (a refused login,
      // a control-plane URL opened by hand) would otherwise log a 404 in the console.
      .get(
        FAVICON_PATH,
        () =>
          new Response(FAVICON_SVG, {
            headers: { ...SECURITY_HEADERS, "content-type": "image/svg+xml", "cache-control": "public, max-age=86400" },
          }),
        {
          response: { 200: t.String({ description: "The dashboard's icon (SVG)" }) },
          detail: { hide: true, operationId: "getFavicon", tags, summary: "The dashboard's icon" },
        },
      )
      .get(
        `${UI_PREFIX}:file`,
        async ({ params }) => {
          const file = (await dashboardAssets()).files[UI_PREFIX + params.file];
          if (!file) throw errors.notFound("GET", UI_PREFIX + params.file);
          // Hashed names: a file never changes under its name.
          return new Response(file.body, {
            headers: {
              ...SECURITY_HEADERS,
              "content-type": file.contentType,
              "cache-control": "public, max-age=31536000, immutable",
            },
          });
        },
        {
          params: t.Object({ file: t.String() }),
          response: { 200: t.String({ description: "A script or style sheet of the dashboard" }) },
          detail: {
            ...errorResponses(["malformed_path", "not_found"]),
            hide: true,
            operationId: "getDashboardAsset",
            tags,
            summary: "A hashed script or style sheet of the dashboard",
          },
        },
      )
  );
}
