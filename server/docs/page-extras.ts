/**
 * What /docs adds around Scalar's page: a note shown at once (Scalar's script and its rendering of the document
 * take seconds; the page would be blank until then), `lang`, and the dashboard's key handed to "try it".
 *
 * The handoff: the dashboard's "API reference" link stores the account's `dashboard` key in this tab's
 * sessionStorage (same origin: no other origin can read it, and it goes with the tab), and the script below puts
 * it in Scalar's authentication configuration before Scalar reads it. The page's Content-Security-Policy
 * (`connect-src 'self'`, `form-action 'none'`, no framing, no referrer) keeps "try it" on this origin, so the
 * key is sent nowhere but to this emulator. The entry is removed as soon as it is read: a page served later on
 * this port (the emulator restarted elsewhere, another program in its place) shares the origin and would read
 * it. Opened any other way, /docs has no key filled in.
 */

import { DOCS_KEY_STORAGE } from "../../common/dashboard-links";

/** The security scheme of the developer API in the OpenAPI document. */
export const DEVELOPER_SCHEME = "bearerAuth";

const LOADING_CLASS = "ext-docs-loading";

/** Readable in both schemes; hidden once Scalar has drawn the document (its title, the `h1` of `.scalar-app`: the app itself mounts seconds earlier, still empty). */
const LOADING_STYLE = `<style>
.${LOADING_CLASS} { margin: 2rem; padding: 1rem 1.25rem; max-width: 40rem; border-radius: 8px;
  font: 16px/1.5 system-ui, sans-serif; color: #1f2328; background: #f6f8fa; border: 1px solid #d0d7de; }
.${LOADING_CLASS} a { color: #0b5cad; }
@media (prefers-color-scheme: dark) {
  .${LOADING_CLASS} { color: #e6edf3; background: #161b22; border-color: #30363d; }
  .${LOADING_CLASS} a { color: #79c0ff; }
}
body:has(.scalar-app h1) .${LOADING_CLASS} { display: none; }
</style>`;

const LOADING_NOTE = `<div class="${LOADING_CLASS}" role="status">
  <p>Loading the API reference… (the reference is drawn in the browser from
  <a href="/openapi.json">/openapi.json</a>, which takes a few seconds).</p>
  <noscript><p>The reference needs JavaScript; the OpenAPI document itself is at /openapi.json.</p></noscript>
</div>`;

/** Printable ASCII, bounded: anything else in the entry is not a key and is ignored. */
const KEY_SHAPE = "^[\\x21-\\x7e]{1,256}$";

/** Runs before Scalar's script: fills its configuration's authentication from the handoff, if any. */
const HANDOFF_SCRIPT = `<script>
(function () {
  var key = null;
  try {
    key = sessionStorage.getItem(${JSON.stringify(DOCS_KEY_STORAGE)});
    sessionStorage.removeItem(${JSON.stringify(DOCS_KEY_STORAGE)});
  } catch (e) { return; }
  if (!key || !new RegExp(${JSON.stringify(KEY_SHAPE)}).test(key)) return;
  var el = document.getElementById("api-reference");
  var config = JSON.parse(el.getAttribute("data-configuration"));
  config.authentication = {
    preferredSecurityScheme: ${JSON.stringify(DEVELOPER_SCHEME)},
    securitySchemes: { ${DEVELOPER_SCHEME}: { token: key } }
  };
  el.setAttribute("data-configuration", JSON.stringify(config));
})();
</script>`;

/** Scalar's page (from @elysiajs/openapi's template) with the note, `lang` and the handoff script added. */
export function withPageExtras(page: string, scriptSrc: string): string {
  const script = `<script src="${scriptSrc}"`;
  if (!page.includes("<html>") || !page.includes("<body>") || !page.includes(script))
    throw new Error("the docs page template changed: /docs cannot add its loading note and key handoff");
  return page
    .replace("<html>", '<html lang="en">')
    .replace("</head>", `${LOADING_STYLE}\n</head>`)
    .replace("<body>", `<body>\n${LOADING_NOTE}`)
    .replace(script, `${HANDOFF_SCRIPT}\n    ${script}`);
}
