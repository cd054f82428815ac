/**
 * What the login's redirect and the dashboard agree on (plain constants and a pure function: ui/ imports this
 * file too). The redirect is `/#session=<secret>`; the page keeps the secret under STORAGE_KEY in its origin's
 * localStorage.
 */
export const SESSION_FRAGMENT = "session=";
export const SESSION_STORAGE_KEY = "ext-dashboard-session";

/** The redirect's whole Location: the fragment and a secret of 32 random bytes in base64url. */
const SESSION_REDIRECT = new RegExp(`^/#${SESSION_FRAGMENT}([A-Za-z0-9_-]{43})$`);

/** The session secret a login's redirect carries (its Location header), or null when it carries none. */
export function sessionInRedirect(location: string | null): string | null {
  return SESSION_REDIRECT.exec(location ?? "")?.[1] ?? null;
}
