/**
 * What the login's redirect and the dashboard agree on (plain constants: ui/ imports this file too). The
 * redirect is `/#session=<secret>`; the page keeps the secret under STORAGE_KEY in its origin's localStorage.
 */
export const SESSION_FRAGMENT = "session=";
export const SESSION_STORAGE_KEY = "ext-dashboard-session";
