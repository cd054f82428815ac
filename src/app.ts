/**
 * The HTTP application: a factory that never listens, so tests can call `app.handle(request)` in process
 * and the server (src/server.ts) can listen on a real socket with the same code.
 */
import { Elysia, t } from "elysia";
import { API_PREFIX, DEPLOY_LIMITS_PREFIX, isLoopback } from "./config";
import { dashboardRoutes } from "./dashboard/routes";
import { docsPlugin } from "./docs/openapi";
import { adminGate } from "./emulator/admin-auth";
import { faultWrapper } from "./emulator/fault-injector";
import { controlPlaneRoutes } from "./emulator/routes";
import { errorHandler } from "./errors/handler";
import { extensionRoutes } from "./extensions/routes";
import { apiGate } from "./http/auth";
import { requestGates } from "./http/gates";
import { hostGate } from "./http/host-check";
import { quietBodySchemas } from "./http/quiet-validation";
import { routeMethodIndex } from "./http/route-index";
import { installRoutes } from "./installs/routes";
import { limitsRoutes } from "./limits/routes";
import type { Runtime } from "./runtime";
import { secretRoutes } from "./secrets/routes";
import { firstResponseWrapper } from "./startup-trace";
import { versionRoutes } from "./versions/routes";

const HEALTH = { status: "ok" as const };

export function createApp(runtime: Runtime) {
  const { services, logger } = runtime;
  const methods = routeMethodIndex();
  const { control } = runtime;
  // normalize: false keeps request bodies strict; encodeSchema: false skips TypeBox Encode on responses (no
  // response schema has a transform).
  // Bun answers /healthz itself once listening (a static route: no app code runs), so a liveness probe never
  // waits for a route to be composed; the route below is what the document and `app.handle` see, same body.
  const base = new Elysia({
    normalize: false,
    encodeSchema: false,
    serve: { routes: { "/healthz": { GET: Response.json(HEALTH) } } },
  });
  // Innermost wrap, only when tracing: the first response is part of the start-up (src/startup-trace.ts).
  if (runtime.config.traceStartup) base.wrap(firstResponseWrapper());
  const app = base
    // Fault injection wraps the whole handler, so an injected fault can stand in for any response, a 401 or 429
    // included; the request log wraps that (a later wrap is the outer one) and sees every final status.
    .wrap(faultWrapper(control.faults))
    .wrap(control.requestLog.wrapper())
    .use(errorHandler(logger, methods.allowed))
    .use(docsPlugin())
    .get("/healthz", () => HEALTH, {
      response: { 200: t.Object({ status: t.Literal("ok") }) },
      detail: { tags: ["Health"], operationId: "getHealth", summary: "Liveness (no auth)", security: [] },
    })
    .use(dashboardRoutes())
    .use(
      requestGates(
        // Bound to loopback: the Host check first, on every route (DNS rebinding).
        ...(isLoopback(runtime.config.host) ? [hostGate()] : []),
        adminGate({
          adminToken: control.adminToken,
          openWithoutToken: control.openWithoutToken,
          isDeveloperKey: services.auth.isKey,
        }),
        apiGate(services.auth, runtime.rateLimiter, control.isAdminToken),
      ),
    )
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
  quietBodySchemas(app.routes);
  return app;
}

export type App = ReturnType<typeof createApp>;
