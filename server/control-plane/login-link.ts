/**
 * `POST /_emulator/dashboard-login`: a new one-time login link for the dashboard (`ext dashboard` asks for it;
 * the link of the start works once and for a while only, and is printed only on a terminal).
 */
import { Elysia } from "elysia";
import { LOGIN_CODE_TTL_TEXT } from "../../common/dashboard-links";
import { dashboardLoginUrl } from "../dashboard/login";
import type { Runtime } from "../runtime/runtime";
import { t } from "../schema/schema";
import { controlRoute } from "./route-kit";

const LoginLink = t.Object(
  {
    url: t.String({
      description: `Open it in a browser to log the dashboard in; it works once, within ${LOGIN_CODE_TTL_TEXT} (on the machine's time, not the emulator's clock), and replaces any earlier link`,
    }),
  },
  { additionalProperties: false },
);

export function loginLinkRoutes(runtime: Runtime) {
  const { control } = runtime;
  return new Elysia().post(
    "/dashboard-login",
    () => {
      control.sessions.mintLoginCode();
      return { url: dashboardLoginUrl(control) };
    },
    controlRoute("createDashboardLoginLink", "A new one-time login link for the dashboard", {
      description: `The link works once, within ${LOGIN_CODE_TTL_TEXT} of this call, measured on the machine's time (moving the emulator's clock neither extends nor ends it); a new link replaces the earlier one. \`ext dashboard\` prints one.`,
      answers: { 200: LoginLink },
    }),
  );
}
