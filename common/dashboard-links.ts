/**
 * What the server, its pages (ui/) and the tools agree on about the dashboard and the reference: plain constants
 * and a pure function, no code of either side.
 *  - The login: `ext dashboard` (and `ext serve`'s banner) print a one-time link that works for LOGIN_CODE_TTL_MS;
 *    its redirect is `/#session=<secret>`, and the page keeps the secret under SESSION_STORAGE_KEY in its origin's
 *    localStorage.
 *  - The reference: served at DOCS_PATH from the document at OPENAPI_PATH; the dashboard's "API reference" link
 *    hands it the account's key under DOCS_KEY_STORAGE in sessionStorage (server/docs/page-extras.ts reads it).
 */

/** How long a login code works once made (`ext dashboard` makes a new one). */
export const LOGIN_CODE_TTL_MS = 15 * 60_000;
export const LOGIN_CODE_TTL_TEXT = "15 minutes";

export const SESSION_FRAGMENT = "session=";
export const SESSION_STORAGE_KEY = "ext-dashboard-session";

/** The redirect's whole Location: the fragment and a secret of 32 random bytes in base64url. */
const SESSION_REDIRECT = new RegExp(`^/#${SESSION_FRAGMENT}([A-Za-z0-9_-]{43})$`);

/** The session secret a login's redirect carries (its Location header), or null when it carries none. */
export function sessionInRedirect(location: string | null): string | null {
  return SESSION_REDIRECT.exec(location ?? "")?.[1] ?? null;
}

/** Where the reference is served; the dashboard links to it. */
export const DOCS_PATH = "/docs";
/** Where the OpenAPI document is served (the reference reads it from there). */
export const OPENAPI_PATH = "/openapi.json";
/** The sessionStorage entry the dashboard writes and /docs reads. */
export const DOCS_KEY_STORAGE = "ext-docs-api-key";
