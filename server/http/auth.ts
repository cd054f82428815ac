/**
 * Developer API authentication, in two steps:
 *  1. `developerGate` (a step of the pre-routing, server/http/pre-routing.ts: before body parsing and validation): who
 *     is calling — the key is checked and the account's rate window is taken, so a bad key is a 401 whatever the
 *     body, and a 429 costs no parsing.
 *  2. the `auth` macro (transform, before validation): may this key call this route — its scope.
 * The principal travels from 1 to 2 in the request's context (server/http/request-context.ts), so nothing is
 * looked up twice.
 */
import { Elysia } from "elysia";
import { JSON_BODY_MAX_BYTES } from "../../common/api-rules";
import { hasScope, type Scope } from "../../common/scopes";
import type { AuthService, Principal } from "../auth/service";
import { errors } from "../errors/catalog";
import { type RateLimiter, rateGroupOf } from "../ratelimit/limiter";
import { declaresMoreThan, readJsonBody } from "./body-limit";
import { mediaTypeOf } from "./media-type";
import { type RequestContext, requestContextOf } from "./request-context";
import type { RouteTable } from "./route-table";

/** The account behind a developer-API request once the gate has authenticated it. */
function principalOf(request: Request): Principal | null {
  return requestContextOf(request)?.principal ?? null;
}

/**
 * `routes` names the route a request reaches (server/http/route-table.ts). `isAdminToken` recognises the control
 * plane's token so that sending it here gets a specific 401 (it never opens the developer API); it is consulted
 * only after a key failed to authenticate.
 */
export function developerGate(
  auth: AuthService,
  limiter: RateLimiter,
  routes: RouteTable,
  isAdminToken?: (authorization: string | null) => boolean,
): (request: Request, context: RequestContext) => void {
  const authenticate = (authorization: string | null): Principal => {
    try {
      return auth.authenticate(authorization);
    } catch (e) {
      if (isAdminToken?.(authorization)) throw errors.adminTokenOnApi();
      throw e;
    }
  };
  return (request, context) => {
    // Known before the rate check, so a 429 is still attributed to its account in the request log.
    const principal = authenticate(request.headers.get("authorization"));
    context.principal = principal;
    const { method } = request;
    const tooLarge = declaresMoreThan(request, JSON_BODY_MAX_BYTES);
    // Which route the request reaches matters to a POST's group and to whether the window is spent: asked only then.
    const route = limiter.isEnabled || (tooLarge && method === "POST") ? routes.routeOf(method, context.path) : null;
    const group = rateGroupOf(method, route);
    if (group && limiter.isEnabled) {
      // Only a request that reaches a route spends the window; one that reaches none (its 404 or 405) is told
      // where the window stands, and is answered even when the window is full. The headers go on the answer
      // where it is made (server/http/request-context.ts).
      context.answerHeaders =
        route !== null ? limiter.take(principal.accountId, group) : limiter.peek(principal.accountId, group);
    }
    // A JSON body over the cap is refused before it is read. It is counted first, like every authenticated
    // request whatever its outcome, so its 413 carries the rate headers too.
    if (tooLarge && group !== "submit_version") throw errors.payloadTooLarge(JSON_BODY_MAX_BYTES);
  };
}

/** Route options: `auth: "<scope>"` requires that scope; `json: true` requires a JSON Content-Type. */
export const apiAuth = new Elysia({ name: "api-auth" }).macro({
  auth: (scope: Scope) => ({
    transform({ request }) {
      const principal = principalOf(request);
      if (!principal) throw errors.unauthorized("missing");
      if (!hasScope(principal.scopes, scope)) throw errors.forbidden(scope);
    },
    resolve({ request }) {
      const principal = principalOf(request);
      // The transform above refused a request without one; the check also keeps Elysia from awaiting this hook.
      if (!principal) throw errors.unauthorized("missing");
      return { principal };
    },
    detail: { security: [{ bearerAuth: [] }] },
  }),
  json: {
    // 1. a body sent as anything but JSON is a 415; 2. the body is read (a chunked one with a cap) and parsed as JSON
    // whatever the Content-Type (none at all included). The named "json" parser runs only for an empty body (2 leaves
    // it to decide: it knows whether the body is optional); it is also what tells @elysiajs/openapi that the request
    // body is application/json: with functions alone it documents no body content.
    parse: [
      ({ contentType }: { contentType: string }) => {
        if (contentType && mediaTypeOf(contentType) !== "application/json")
          throw errors.unsupportedMediaType("application/json", contentType);
      },
      // Read and parsed here: a chunked body (no Content-Length) with a running cap, a declared one (checked by the
      // gate) at once; the text is kept for the request log.
      ({ request }: { request: Request }) => readJsonBody(request, JSON_BODY_MAX_BYTES),
      // Elysia accepts a parser's name here at run time; its macro typing only knows functions.
      "json" as never,
    ],
  },
});

/**
 * The app a developer-API resource declares its routes on: one that has `apiAuth` (whose macros type the handlers).
 * Each resource is a function of that app (server/start/app.ts gives it the app itself), so each route is added
 * once, with its full path: a plugin of its own would have Elysia add every route again where it is used.
 */
export type ApiApp = typeof apiAuth;
