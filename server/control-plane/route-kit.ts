/**
 * The control plane's part of the route kit (server/http/route-kit.ts): every route under /_emulator is declared
 * with `controlRoute`, which adds the OpenAPI tag, who may call (the security note) and what the admin gate and
 * any route can answer (401, 403, 500) to what the declaration implies.
 */
import { errorResponses } from "../errors/model";
import { WWW_AUTHENTICATE_HEADER } from "../http/responses";
import { impliedRefusals, type Maybe, type RouteDeclaration, routeOptions, type Schemas } from "../http/route-kit";

const tags = ["Emulator"];
/**
 * The admin token on every bind, or the dashboard's session secret (`X-Ext-Session`) from its own pages (see admin-auth.ts);
 * `--open-control-plane` is a local opt-out the document does not describe.
 */
const security: Record<string, string[]>[] = [{ adminToken: [] }, { dashboardSession: [] }];

/** A control-plane route's options, from its operation's id and summary and its declaration. */
export function controlRoute<
  S extends Schemas,
  P extends Maybe = undefined,
  Q extends Maybe = undefined,
  B extends Maybe = undefined,
>(operationId: string, summary: string, declaration: RouteDeclaration<S, P, Q, B>) {
  const refusals = ["unauthorized", "forbidden", "internal_error", ...impliedRefusals(declaration)] as const;
  const errors = errorResponses(refusals, (s) => (s === 401 ? WWW_AUTHENTICATE_HEADER : undefined));
  return routeOptions({ operationId, summary }, declaration, declaration.answers, { tags, security, ...errors });
}

export { NoContent, noContent } from "../http/responses";
