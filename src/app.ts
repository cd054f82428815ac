/**
 * The HTTP application: a factory that never listens, so tests can call `app.handle(request)` in process
 * and the server (src/server.ts) can listen on a real socket with the same code.
 */
import { Elysia } from "elysia";
import { CHALLENGE_PATTERN, serverProof } from "./auth/server-proof";
import { API_PREFIX, DEPLOY_LIMITS_PREFIX, isLoopback } from "./config";
import { dashboardLogin } from "./dashboard/login";
import { dashboardRoutes } from "./dashboard/routes";
import { docsPlugin } from "./docs/openapi";
import { adminGate } from "./emulator/admin-auth";
import { faultHook } from "./emulator/fault-injector";
import { controlPlaneRoutes } from "./emulator/routes";
import { errorHandler } from "./errors/handler";
import { errorResponses } from "./errors/model";
import { extensionRoutes } from "./extensions/routes";
import { apiGate } from "./http/auth";
import { requestGates } from "./http/gates";
import { hostGate } from "./http/host-check";
import { malformedPathGuard } from "./http/path-encoding";
import { type AnswerObserver, requestLifecycle } from "./http/request-context";
import { requestUrlCheck } from "./http/request-url";
import { routeIndex } from "./http/route-index";
import { t } from "./http/schema";
import { installRoutes } from "./installs/routes";
import { limitsRoutes } from "./limits/routes";
import { profiledFetch } from "./profile/apply";
import type { Runtime } from "./runtime";
import { secretRoutes } from "./secrets/routes";
import { firstResponseObserver } from "./startup-trace";
import { versionRoutes } from "./versions/routes";

export const HEALTH = { status: "ok" as const };

export function createApp(runtime: Runtime) {
  const { services, logger } = runtime;
  const methods = routeIndex();
  const { control } = runtime;
  // normalize: false keeps request bodies strict; encodeSchema: false skips TypeBox Encode on responses (no
  // response schema has a transform). standardHostname: false makes the router read the path from the first
  // "/" after "http://", as pathOf (src/http/paths.ts) does, whatever the host's length.
  // Every answer is reported before it is sent: to the request log, and, when tracing, the first one to the
  // start-up trace (src/startup-trace.ts).
  const observers: AnswerObserver[] = [control.requestLog.observe];
  if (runtime.config.traceStartup) observers.push(firstResponseObserver());
  const app = new Elysia({ normalize: false, encodeSchema: false, handler: { standardHostname: false } })
    // onRequest hooks run in this order: the request's context, the URL and Host check, then faults (so an
    // injected fault can stand in for any response, a 401 or 429 included), then the request gates below.
    .use(requestLifecycle(runtime.clock, observers))
    .use(requestUrlCheck())
    .use(faultHook(control.faults))
    .use(errorHandler(logger, methods.allowed))
    .use(docsPlugin())
    .use(
      requestGates(
        // Bound to loopback, or given host names: the Host check first, on every route (DNS rebinding).
        ...(isLoopback(runtime.config.host) || runtime.config.allowedHosts.length > 0
          ? [hostGate(runtime.config.allowedHosts)]
          : []),
        adminGate({
          adminToken: control.adminToken,
          open: control.open,
          sessions: control.sessions,
          isDeveloperKey: services.auth.isKey,
        }),
        apiGate(services.auth, runtime.rateLimiter, methods.routeOf, control.isAdminToken),
      ),
    )
    // After the gates (who may call comes first), before any route sees an undecodable parameter.
    .use(malformedPathGuard())
    .get(
      "/healthz",
      ({ query }) =>
        query.challenge === undefined
          ? HEALTH
          : { ...HEALTH, proof: serverProof(control.adminToken, query.challenge, control.url) },
      {
        query: t.Object(
          {
            challenge: t.Optional(
              t.String({
                pattern: CHALLENGE_PATTERN,
                description:
                  'A fresh random nonce (22 to 128 base64url characters): the answer then carries `proof`, base64url(HMAC-SHA256(key = admin token, message = "ext-server-proof\\n" + challenge + "\\n" + url)), url being this server\'s origin as its server.json names it. A client holding the token checks it without sending the token.',
              }),
            ),
          },
          { additionalProperties: true },
        ),
        response: {
          200: t.Object({
            status: t.Literal("ok"),
            proof: t.Optional(t.String({ description: "Present when a challenge was sent: the server proof" })),
          }),
          ...errorResponses(["validation_error"]),
        },
        detail: {
          tags: ["Health"],
          operationId: "getHealth",
          summary: "Liveness (no auth); with a challenge, the server's proof that it holds the admin token",
          security: [],
        },
      },
    )
    .use(dashboardRoutes())
    .use(dashboardLogin(control))
    .use(controlPlaneRoutes(runtime))
    .group(API_PREFIX, (api) =>
      api
        .use(extensionRoutes(services.extensions))
        .use(secretRoutes(services.secrets))
        .use(installRoutes(services.installs))
        .use(versionRoutes(services.versions, runtime.blobs))
        .use(limitsRoutes(services.limitsView, "getLimits")),
    )
    // The literal path the spec gives the deploy tool for the limits endpoint; same body.
    .group(DEPLOY_LIMITS_PREFIX, (deploy) => deploy.use(limitsRoutes(services.limitsView, "getDeployLimits")));
  methods.load(app.routes);
  return app;
}

export type App = ReturnType<typeof createApp>;

/**
 * The handler the server listens with: the app's own, and — only when a platform profile is active — the
 * profile's answers on top (src/profile/apply.ts): every answer, a route's or an error's, is made by the app
 * as the spec says, then sent in the platform's observed shape for the operations the profile names. Without
 * a profile nothing is added.
 */
export function answeringFetch(app: App, runtime: Runtime): (request: Request) => Response | Promise<Response> {
  return runtime.profile ? profiledFetch(app.fetch, runtime.profile.compiled) : app.fetch;
}
