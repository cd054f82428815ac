/** `POST /_emulator/dashboard-login`: a new one-time login link for the dashboard (the one printed at start works once). */
import { Elysia, t } from "elysia";
import { dashboardLoginUrl } from "../dashboard/login";
import type { Runtime } from "../runtime";
import { controlResponses, security, tags } from "./route-kit";

const LoginLink = t.Object(
  {
    url: t.String({
      description: "Open it in a browser to log the dashboard in; it works once, and replaces any earlier link",
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
    {
      response: controlResponses({ 200: LoginLink }),
      detail: {
        tags,
        security,
        operationId: "createDashboardLoginLink",
        summary: "A new one-time login link for the dashboard",
      },
    },
  );
}
