/**
 * `GET /dashboard/login?token=<code>`: the link `ext serve` prints and the ready file carries. A valid one-time
 * code (or the admin token itself) starts a dashboard session: a 303 to the dashboard with the session secret
 * in the URL's fragment (`/#session=<secret>`; server/runtime/control-state/dashboard-session.ts), so the code leaves the
 * address bar and the history at once. A fragment is never sent to a server nor in a Referer; the page moves
 * the secret into this origin's storage, takes it out of the address bar, and sends it as `X-Ext-Session`.
 * No cookie is set: a cookie would also go to every other port of this host.
 */
import { Elysia } from "elysia";
import { SESSION_FRAGMENT } from "../../common/dashboard-links";
import { errors } from "../errors/catalog";
import type { ControlPlane } from "../runtime/control-state/control";
import { t } from "../schema/schema";

export const LOGIN_PATH = "/dashboard/login";

/** The link a person opens to log the dashboard in (one-time, and for LOGIN_CODE_TTL_MS: server/runtime/control-state/dashboard-session.ts). */
export function dashboardLoginUrl(control: ControlPlane): string {
  return `${control.url}${LOGIN_PATH}?token=${control.sessions.loginCode()}`;
}

export function dashboardLogin(control: ControlPlane) {
  return new Elysia({ name: "dashboard-login" }).get(
    LOGIN_PATH,
    ({ query, request }) => {
      // A HEAD (a link checker, a chat's preview) must not spend the one login the link is for.
      if (request.method === "HEAD")
        return new Response(null, { status: 204, headers: { "cache-control": "no-store" } });
      const login = control.sessions.login(query.token);
      if ("refused" in login)
        throw login.refused === "expired" ? errors.dashboardLoginExpired() : errors.dashboardLoginRefused();
      const { secret } = login;
      return new Response(null, {
        status: 303,
        headers: {
          location: `/#${SESSION_FRAGMENT}${secret}`,
          "cache-control": "no-store",
          "referrer-policy": "no-referrer",
        },
      });
    },
    {
      query: t.Object({ token: t.String({ minLength: 1, maxLength: 256 }) }),
      detail: {
        hide: true,
        operationId: "dashboardLogin",
        tags: ["Dashboard"],
        summary: "Trades the one-time login link of `ext serve` for a dashboard session",
      },
    },
  );
}
