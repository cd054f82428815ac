/**
 * `POST /_emulator/dashboard-login`: a new one-time login code for the dashboard, and where to post it
 * (`ext dashboard` asks for one, writes it into a private page that posts it, and opens that page in the
 * browser). `GET /_emulator/dashboard-login/{id}`: what became of it, so `ext dashboard` knows when the page
 * has done its work and can be removed. Nothing in either answer is a URL that carries a credential.
 */
import { Elysia } from "elysia";
import { LOGIN_CODE_FIELD, LOGIN_CODE_TTL_TEXT, LOGIN_FORM_TYPE, LOGIN_PATH } from "../../common/dashboard-links";
import { errors } from "../errors/catalog";
import type { Runtime } from "../runtime/runtime";
import { t } from "../schema/schema";
import { controlRoute } from "./route-kit";

const LoginId = t.String({ description: "Names this login when asking what became of it; opens nothing" });

const LoginCode = t.Object(
  {
    id: LoginId,
    code: t.String({
      description: `The one-time code: post it as the form field \`${LOGIN_CODE_FIELD}\` (${LOGIN_FORM_TYPE}) to loginUrl; it works once, within ${LOGIN_CODE_TTL_TEXT} (on the machine's time, not the emulator's clock), and replaces any earlier code. Never put it in a URL: a code seen in one is revoked`,
    }),
    loginUrl: t.String({
      description:
        "Where to post the code: /dashboard/login on this run's dashboard origin, http://<label>.localhost:<port>, drawn at random by each start (it carries no credential; the dashboard is served there only)",
    }),
  },
  { additionalProperties: false },
);

const LoginStatus = t.Object(
  {
    id: LoginId,
    state: t.UnionEnum(["waiting", "used", "expired", "revoked"], {
      description:
        "waiting: not used yet; used: a browser logged in with it; expired: its time ran out unused; revoked: it was sent in a URL (where it may be logged or shown in a process list), so it no longer works",
    }),
  },
  { additionalProperties: false },
);

const LoginIdParams = t.Object({ id: t.String({ pattern: "^[A-Za-z0-9_-]{1,64}$" }) });

export function loginLinkRoutes(runtime: Runtime) {
  const { control } = runtime;
  return new Elysia()
    .post(
      "/dashboard-login",
      () => ({ ...control.sessions.mintLogin(), loginUrl: `${control.dashboardUrl}${LOGIN_PATH}` }),
      controlRoute("createDashboardLoginLink", "A new one-time login code for the dashboard", {
        description: `The code works once, within ${LOGIN_CODE_TTL_TEXT} of this call, measured on the machine's time (moving the emulator's clock neither extends nor ends it); a new code replaces the earlier one. A browser logs in by posting it in a form body (what the page \`ext dashboard\` opens does); it is never accepted in a URL.`,
        answers: { 200: LoginCode },
      }),
    )
    .get(
      "/dashboard-login/:id",
      ({ params }) => {
        const state = control.sessions.loginState(params.id);
        if (state === null) throw errors.dashboardLoginNotFound(params.id);
        return { id: params.id, state };
      },
      controlRoute("getDashboardLogin", "What became of a dashboard login code", {
        description:
          "The state of the current code, by the id its creation answered; a code replaced by a newer one, or made before a restart, is a 404. `ext dashboard` asks this to know when the page it opened has logged the browser in.",
        params: LoginIdParams,
        answers: { 200: LoginStatus },
        refusals: ["not_found"],
      }),
    );
}
