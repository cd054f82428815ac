/**
 * `GET /dashboard/login?token=<code>`: the link `ext serve` prints and the ready file carries. A valid one-time
 * code (or the admin token itself) starts a dashboard session: an HttpOnly, SameSite=Strict cookie holding a
 * random id (src/emulator/dashboard-session.ts), then a 303 to the dashboard, so the code leaves the address
 * bar and the history at once. The control plane takes that cookie only from this server's own pages.
 */
import { Elysia, t } from "elysia";
import type { ControlPlane } from "../emulator/control";
import { errors } from "../errors/catalog";

export const LOGIN_PATH = "/dashboard/login";

/** The link a person opens to log the dashboard in (one-time: the code is used up by the first visit). */
export function dashboardLoginUrl(control: ControlPlane): string {
  return `${control.url}${LOGIN_PATH}?token=${control.sessions.loginCode()}`;
}

export function dashboardLogin(control: ControlPlane) {
  return new Elysia({ name: "dashboard-login" }).get(
    LOGIN_PATH,
    ({ query }) => {
      const id = control.sessions.login(query.token);
      if (id === null) throw errors.dashboardLoginRefused();
      return new Response(null, {
        status: 303,
        headers: {
          location: "/",
          "set-cookie": `${control.sessions.cookieName()}=${id}; HttpOnly; SameSite=Strict; Path=/`,
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
        summary: "Trades the one-time login link of `ext serve` for a dashboard session cookie",
      },
    },
  );
}
