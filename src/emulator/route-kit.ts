/** What every control-plane route shares: the OpenAPI tag, the security note and the errors it can answer. */
import type { TSchema } from "elysia";
import type { ErrorCode } from "../errors/codes";
import { errorResponses } from "../errors/model";
import { WWW_AUTHENTICATE_HEADER } from "../http/responses";

export const tags = ["Emulator"];
/**
 * The admin token on every bind, or the dashboard's session secret (`X-Ext-Session`) from its own pages (see admin-auth.ts);
 * `--open-control-plane` is a local opt-out the document does not describe.
 */
export const security: Record<string, string[]>[] = [{ adminToken: [] }, { dashboardSession: [] }];

/**
 * The `response` of a control-plane route: its success schema(s) and the errors it can return (`codes`,
 * plus the admin gate's 401 and 403 and the 500 any route can answer).
 */
export function controlResponses<S extends Record<number, TSchema>>(success: S, ...codes: ErrorCode[]) {
  return {
    ...success,
    ...errorResponses(["unauthorized", "forbidden", "internal_error", ...codes], (s) =>
      s === 401 ? WWW_AUTHENTICATE_HEADER : undefined,
    ),
  };
}

export { NoContent, noContent } from "../http/responses";
