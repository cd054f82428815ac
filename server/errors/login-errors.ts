/**
 * The catalogue's errors of the dashboard's login (server/errors/catalog.ts; the route is server/dashboard/login.ts,
 * the codes server/runtime/control-state/dashboard-session.ts): a code used, expired or revoked, a credential
 * sent in a URL, a login from a page elsewhere, a form that is not the login form, and a login id asked about
 * that is no longer the current one.
 */
import { LOGIN_CODE_TTL_TEXT } from "../../common/dashboard-links";
import { ApiError } from "./api-error";
import { clip, validationError } from "./message-parts";

const AGAIN = "Run `ext dashboard` in the server's folder to log a browser in.";

/** Why a URL is never a place for a credential, said wherever one is refused there. */
const URLS_LEAK =
  "a URL is logged, kept in the browser's history and, given to a browser to open, shown in every local user's process list";

export const loginErrors = {
  dashboardLoginRefused: () =>
    new ApiError(401, "unauthorized", `This dashboard login code is used up or wrong: each code works once. ${AGAIN}`),
  dashboardLoginExpired: () =>
    new ApiError(
      401,
      "unauthorized",
      `This dashboard login code has expired: a code works for ${LOGIN_CODE_TTL_TEXT}, once. ${AGAIN}`,
    ),
  dashboardLoginRevoked: () =>
    new ApiError(
      401,
      "unauthorized",
      `This dashboard login code was sent in a URL, so it no longer works (${URLS_LEAK}). ${AGAIN}`,
    ),
  /** A credential in the query of /dashboard/login: refused whatever it is; `carried` says what it was. */
  dashboardLoginInUrl: (carried: "code" | "admin token" | null) =>
    new ApiError(
      400,
      "bad_request",
      `A dashboard login never takes anything in the URL: ${URLS_LEAK}. \`ext dashboard\` logs a browser in (it posts a one-time code in a form body); a script posts to /dashboard/login with Authorization: Bearer <admin token>.${
        carried === "code"
          ? " The login code this URL carried is revoked."
          : carried === "admin token"
            ? " This URL carried the admin token: treat it as exposed (start the server with a new one)."
            : ""
      }`,
    ),
  dashboardLoginMethod: (method: string) =>
    new ApiError(
      405,
      "method_not_allowed",
      `${clip(method, 20)} is not allowed on /dashboard/login; allowed: POST. ${AGAIN}`,
      undefined,
      { Allow: "POST" },
    ),
  /** A login code from a page whose Origin is neither a local file's (`null`) nor this server's. */
  dashboardLoginCrossSite: (origin: string) =>
    new ApiError(
      403,
      "forbidden",
      `A dashboard login code is taken from the page \`ext dashboard\` opens (a local file: Origin null), from this server's own pages, or from a script (no Origin); Origin "${clip(origin, 100)}" is none of them.`,
    ),
  /** The admin token offered from a browser page (any Origin but this server's, or a cross-site fetch). */
  dashboardLoginTokenFromPage: (why: string) =>
    new ApiError(
      403,
      "forbidden",
      `The admin token logs the dashboard in from a script (no Origin) or this server's own pages only (${why}); a page elsewhere, a local file included, can send only a one-time login code.`,
    ),
  dashboardLoginBothWays: () =>
    new ApiError(
      400,
      "bad_request",
      "A dashboard login is either Authorization: Bearer <admin token> with no body, or a form with the one-time code and no Authorization header; not both.",
    ),
  dashboardLoginForm: (problem: string) => validationError([{ field: "code", message: `code: ${problem}` }]),
  dashboardLoginTooLarge: (maxBytes: number) =>
    new ApiError(
      413,
      "payload_too_large",
      `A dashboard login form is at most ${maxBytes} bytes: one field, \`code\`, the one-time code.`,
    ),
  dashboardLoginNotFound: (id: string) =>
    new ApiError(
      404,
      "not_found",
      `No current dashboard login has the id ${clip(id, 64)}: a newer one replaced it, or the server restarted.`,
    ),
};
