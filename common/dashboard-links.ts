/**
 * What the server, its pages (ui/) and the tools agree on about the dashboard and the reference: plain constants
 * and a pure function, no code of either side.
 *  - The login: `ext dashboard` asks the control plane for a one-time code, which works for LOGIN_CODE_TTL_MS,
 *    and opens a private page that posts it as the form field LOGIN_CODE_FIELD to LOGIN_PATH (never in a URL);
 *    the answer redirects to `/#session=<secret>`, and the page keeps the secret under SESSION_STORAGE_KEY in
 *    its origin's localStorage.
 *  - The reference: served at DOCS_PATH from the document at OPENAPI_PATH; the dashboard's "API reference" link
 *    hands it the account's key under DOCS_KEY_STORAGE in sessionStorage (server/docs/page-extras.ts reads it).
 */

/** Where a login is posted (a one-time code in a form body, or a script's admin token in its Authorization header). */
export const LOGIN_PATH = "/dashboard/login";
/** The login form's one field, and its type. */
export const LOGIN_CODE_FIELD = "code";
export const LOGIN_FORM_TYPE = "application/x-www-form-urlencoded";
/** A login code as the server mints it (base64url); the login form takes nothing else. */
export const LOGIN_CODE_PATTERN = /^[A-Za-z0-9_-]{1,256}$/;

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

/**
 * The dashboard's origin: `http://<label>.localhost:<port>`, the label drawn at random by each start (130 bits,
 * lowercase base32; server/runtime/control-state/dashboard-session.ts). Browsers resolve every `*.localhost` name to loopback without
 * asking DNS, so the name reaches this machine only; and since nobody can know the label before the server
 * starts, no page another local user served earlier on this port (a service worker above all) can be on it.
 */
export const DASHBOARD_LABEL_PATTERN = /^[a-z2-7]{26}$/;
const LABEL_HOST = /^([a-z2-7]{26})\.localhost$/;

/** The host name of the dashboard's origin for `label`. */
export const dashboardHostname = (label: string) => `${label}.localhost`;

/** The dashboard's origin for `label` on `port`. */
export const dashboardOrigin = (label: string, port: number) => `http://${dashboardHostname(label)}:${port}`;

/** Whether a (lower-case) host name has the shape of a dashboard origin's, this run's or another's. */
export const isDashboardHostname = (hostname: string) => LABEL_HOST.test(hostname);
