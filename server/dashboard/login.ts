/**
 * `POST /dashboard/login`: starts a dashboard session, answering a 303 to the dashboard with the session secret
 * in the URL's fragment (`/#session=<secret>`; server/runtime/control-state/dashboard-session.ts). A fragment is
 * never sent to a server nor in a Referer; the page moves the secret into this origin's storage, takes it out
 * of the address bar, and sends it as `X-Ext-Session`. No cookie is set: a cookie would also go to every
 * other port of this host. Two ways in, each with its own rule about where it may come from:
 *
 *  - a one-time login code in a form body (`code=<code>`, application/x-www-form-urlencoded): what the page
 *    `ext dashboard` writes to a private file and opens in the browser posts. A page opened from a file has
 *    an opaque origin, so its form arrives with `Origin: null` and `Sec-Fetch-Site: cross-site` — as does a
 *    form from a sandboxed frame or a no-referrer page of any site. So a code is accepted with Origin `null`,
 *    this server's own origin, or none (a script), and refused with any other; the code itself is the
 *    credential (single-use, short-lived, known only to whoever ran `ext dashboard`). Nothing else is ever
 *    accepted from a `null` origin.
 *  - the admin token in `Authorization: Bearer` and no body: a script's way (the tests, the bench; asking
 *    `Accept: application/json`, it gets `{"session": "<secret>"}` instead of the redirect). The dashboard never
 *    asks for the token. Only from a script or this server's own pages (`browserRefusal`, the control plane's
 *    rule): never from a page elsewhere, a local file included.
 *
 * Served only on this run's dashboard origin (server/dashboard/origin.ts): addressed by any other name, this
 * path answers the page that says where the dashboard is, and logs nobody in.
 *
 * Never a credential in the URL: a URL is logged, kept in a history and, given to a browser to open, shown in
 * every local user's process list (`/proc/*\/cmdline`). Any request to this path with a query is refused, and a
 * login code found there is revoked; a GET (or HEAD) is refused whatever it carries.
 */
import { Elysia } from "elysia";
import {
  LOGIN_CODE_FIELD,
  LOGIN_CODE_PATTERN,
  LOGIN_FORM_TYPE,
  LOGIN_PATH,
  SESSION_FRAGMENT,
} from "../../common/dashboard-links";
import { bearerToken } from "../auth/bearer";
import { errors } from "../errors/catalog";
import { JSON_MEDIA_TYPE } from "../http/answer-headers";
import { declaresMoreThan } from "../http/body-limit";
import { mediaTypeOf } from "../http/media-type";
import { requestTarget } from "../http/request-url";
import { browserRefusal } from "../runtime/control-state/admin-auth";
import type { ControlPlane } from "../runtime/control-state/control";

/** A login form holds one short code: anything longer is not one. */
export const LOGIN_FORM_MAX_BYTES = 1024;

export function dashboardLogin(control: ControlPlane) {
  const detail = { hide: true, tags: ["Dashboard"] };
  return new Elysia({ name: "dashboard-login" })
    .post(
      LOGIN_PATH,
      async ({ request }) => {
        refuseQuery(control, request);
        const host = requestTarget(request, request.url);
        if ("problem" in host) throw errors.badRequestTarget(host.problem);
        const byToken = request.headers.has("authorization");
        const secret = byToken ? adminLogin(control, request, host.host) : await codeLogin(control, request, host.host);
        // A script's exchange of the token asking for JSON: the secret in the body of an answer only it reads.
        if (byToken && mediaTypeOf(request.headers.get("accept")) === "application/json")
          return new Response(JSON.stringify({ session: secret }), {
            headers: { "content-type": JSON_MEDIA_TYPE, "cache-control": "no-store" },
          });
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
        parse: "none",
        detail: { ...detail, operationId: "dashboardLogin", summary: "Trades a one-time login code for a session" },
      },
    )
    .get(
      LOGIN_PATH,
      ({ request }) => {
        refuseQuery(control, request);
        throw errors.dashboardLoginMethod(request.method);
      },
      { detail: { ...detail, operationId: "dashboardLoginGet", summary: "Refused: a login is a POST" } },
    );
}

/** A credential in the URL: refused, and a login code found there revoked (it may be in a log by now). */
function refuseQuery(control: ControlPlane, request: Request): void {
  const query = request.url.indexOf("?");
  if (query < 0) return;
  let carried: "code" | "admin token" | null = null;
  for (const [, value] of new URLSearchParams(request.url.slice(query + 1))) {
    if (control.sessions.revokeIfCode(value)) carried = "code";
    else if (carried === null && control.isAdminToken(`Bearer ${value}`)) carried = "admin token";
  }
  throw errors.dashboardLoginInUrl(carried);
}

function adminLogin(control: ControlPlane, request: Request, host: string): string {
  const refusal = browserRefusal(request, host);
  if (refusal) throw errors.dashboardLoginTokenFromPage(refusal);
  if (request.body !== null && !declaresNoBody(request)) throw errors.dashboardLoginBothWays();
  const authorization = request.headers.get("authorization");
  if (!control.isAdminToken(authorization)) {
    if (bearerToken(authorization ?? "") === null) throw errors.adminMalformed();
    throw errors.adminWrongToken();
  }
  return control.sessions.openSession();
}

async function codeLogin(control: ControlPlane, request: Request, host: string): Promise<string> {
  const origin = request.headers.get("origin");
  if (origin !== null && origin !== "null" && origin !== `http://${host}`) throw errors.dashboardLoginCrossSite(origin);
  const type = request.headers.get("content-type");
  if (mediaTypeOf(type) !== LOGIN_FORM_TYPE) throw errors.unsupportedMediaType(LOGIN_FORM_TYPE, type);
  const code = formCode(await readForm(request));
  const login = control.sessions.redeem(code);
  if ("secret" in login) return login.secret;
  if (login.refused === "expired") throw errors.dashboardLoginExpired();
  if (login.refused === "revoked") throw errors.dashboardLoginRevoked();
  throw errors.dashboardLoginRefused();
}

/** Content-Length: 0, or none and no body: a request that sends nothing. */
function declaresNoBody(request: Request): boolean {
  return request.headers.get("content-length") === "0";
}

/** The form's text, read up to LOGIN_FORM_MAX_BYTES (refused past it, declared or counted). */
async function readForm(request: Request): Promise<string> {
  if (declaresMoreThan(request, LOGIN_FORM_MAX_BYTES)) throw errors.dashboardLoginTooLarge(LOGIN_FORM_MAX_BYTES);
  const chunks: Uint8Array[] = [];
  let total = 0;
  if (request.body)
    for await (const chunk of request.body) {
      total += chunk.byteLength;
      if (total > LOGIN_FORM_MAX_BYTES) throw errors.dashboardLoginTooLarge(LOGIN_FORM_MAX_BYTES);
      chunks.push(chunk);
    }
  return Buffer.concat(chunks).toString("utf8");
}

/** The one field `code`, once, shaped as a code; any other field is refused (the form is ours, and exact). */
function formCode(text: string): string {
  const fields = [...new URLSearchParams(text)];
  const codes = fields.filter(([name]) => name === LOGIN_CODE_FIELD);
  const other = fields.find(([name]) => name !== LOGIN_CODE_FIELD);
  if (other) throw errors.dashboardLoginForm(`the form has one field, \`code\`; got \`${other[0].slice(0, 40)}\``);
  if (codes.length !== 1) throw errors.dashboardLoginForm(codes.length === 0 ? "is required" : "is given twice");
  const code = codes[0]![1];
  if (!LOGIN_CODE_PATTERN.test(code)) throw errors.dashboardLoginForm("is not a login code (letters, digits, - and _)");
  return code;
}
