/**
 * The HTTP application: a factory that never listens, so tests can call `app.handle(request)` in process
 * and the server (server/start/server.ts) can listen on a real socket with the same code.
 *
 * Every request goes through one pipeline: the pre-routing step (server/http/pre-routing.ts: URL and Host check,
 * faults, the gates, the malformed-path guard), the route, the one error handler (server/errors/handler.ts), and
 * the answer step (server/http/request-context.ts: the answer's headers, a platform profile's changes when one is
 * active, the observers, temporary files, an unread body). The app is built with the developer API only: the control plane, the dashboard and the docs are each
 * a part built by the first request into its part of the URL space (`onFirstUse`), so a start — and the first
 * API answer a test waits for — pays for none of them.
 */
import { type AnyElysia, Elysia } from "elysia";
import { API_PREFIX, CONTROL_PREFIX, DEPLOY_LIMITS_PREFIX, isLoopback } from "../../common/addresses";
import { DOCS_PATH, LOGIN_PATH, OPENAPI_PATH } from "../../common/dashboard-links";
import { CHALLENGE_PATTERN } from "../../common/server-proof";
import { markStartup } from "../../common/startup-trace";
import { onFirstUse } from "../base/on-first-use";
import { FAVICON_PATH, UI_PREFIX } from "../dashboard/build";
import { addressedToDashboard, notHereAnswer, revokeCodesInUrl } from "../dashboard/origin";
import { errorHandler } from "../errors/handler";
import { errorResponses } from "../errors/model";
import { apiAuth, developerGate } from "../http/auth";
import { hostGate } from "../http/host-check";
import { preRouting } from "../http/pre-routing";
import { type AnswerObserver, answers } from "../http/request-context";
import { requestTarget } from "../http/request-url";
import { RouteTable } from "../http/route-table";
import { answerChanges } from "../profile/apply";
import { ExtensionList } from "../resources/extensions/model";
import { extensionRoutes } from "../resources/extensions/routes";
import { installRoutes } from "../resources/installs/routes";
import { limitsRoutes } from "../resources/limits/routes";
import { secretRoutes } from "../resources/secrets/routes";
import { versionRoutes } from "../resources/versions/routes";
import { adminGate } from "../runtime/control-state/admin-auth";
import type { Runtime } from "../runtime/runtime";
import { t } from "../schema/schema";

export const HEALTH = { status: "ok" as const };

/**
 * How every app here reads requests (the app and each of its parts alike). normalize: false keeps request
 * bodies strict (an unknown field is refused, not dropped); encodeSchema: false skips TypeBox Encode on
 * responses (no response schema has a transform). standardHostname: false makes the router read the path from
 * the first "/" after "http://", whatever the host's length: the path the pre-routing step reads from it.
 */
const READING = { normalize: false, encodeSchema: false, handler: { standardHostname: false } } as const;

/**
 * The proof's HMAC is node:crypto's (common/server-proof-hmac.ts, shared with the tools, which run in Node too):
 * loaded by the first challenge, not by every start, since importing node:crypto loads Node's stream machinery.
 */
const proofOf = async (adminToken: string, challenge: string, url: string) =>
  (await import("../../common/server-proof-hmac")).serverProof(adminToken, challenge, url);

/** /healthz: liveness, and the server's proof that it holds the admin token. */
function health(runtime: Runtime) {
  const { control } = runtime;
  return new Elysia({ name: "health" }).get(
    "/healthz",
    async ({ query }) =>
      query.challenge === undefined
        ? HEALTH
        : { ...HEALTH, proof: await proofOf(control.adminToken, query.challenge, control.url) },
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
      },
      detail: {
        ...errorResponses(["validation_error"]),
        tags: ["Health"],
        operationId: "getHealth",
        summary: "Liveness (no auth); with a challenge, the server's proof that it holds the admin token",
        security: [],
      },
    },
  );
}

/**
 * An answer observer, only when tracing (`--trace-startup`): marks the first answer the app gave (Elysia
 * composes each route's handler on its first request, so that first one is part of the start-up's cost), then
 * steps aside.
 */
let firstResponseSeen = false;
function firstResponseObserver(): AnswerObserver {
  return ({ context, status }) => {
    if (firstResponseSeen) return;
    firstResponseSeen = true;
    markStartup(`first response (${context.path} ${status})`);
  };
}

/**
 * The developer API, registered on `app` itself: Elysia adds each route again at every plugin level it sits in
 * (a plugin, a group, the app), so each resource is a function that declares its routes, with their full paths,
 * on the app it is given (server/http/auth.ts, ApiApp): each route is added once. What the app is built with,
 * beside /healthz.
 */
function withDeveloperApi(app: AnyElysia, runtime: Runtime): AnyElysia {
  const { services } = runtime;
  // Each route builds its service on its first request (a service prepares its statements when built).
  return (
    app
      .use(apiAuth)
      .use(extensionRoutes(() => services.extensions))
      .use(secretRoutes(() => services.secrets))
      .use(installRoutes(() => services.installs))
      .use(versionRoutes(() => services.versions, runtime.blobs))
      .use(limitsRoutes(() => services.limitsView, API_PREFIX, "getLimits"))
      // The literal path the spec gives the deploy tool for the limits endpoint; same body.
      .use(limitsRoutes(() => services.limitsView, DEPLOY_LIMITS_PREFIX, "getDeployLimits"))
  );
}

/** The control plane's routes (loaded with their modules by the first request for them). */
async function controlPlane(runtime: Runtime) {
  const { controlPlaneRoutes } = await import("../control-plane/routes");
  return controlPlaneRoutes(runtime);
}

async function dashboard(runtime: Runtime) {
  const [{ dashboardRoutes }, { dashboardLogin }] = await Promise.all([
    import("../dashboard/routes"),
    import("../dashboard/login"),
  ]);
  return new Elysia({ name: "dashboard-part" }).use(dashboardRoutes()).use(dashboardLogin(runtime.control));
}

/**
 * The models that routes answering serialized JSON name in the document (readyAnswer, server/http/responses.ts):
 * registered with the document's app only, so the serving app compiles no validator for them.
 */
const READY_ANSWER_MODELS = { ExtensionList };

/** Every route of the emulator in one app, built afresh: what the OpenAPI document describes, and what tests list. */
export async function everyRoute(runtime: Runtime): Promise<AnyElysia> {
  // In the order the document has always listed them: /healthz, the control plane, the developer API.
  const root = new Elysia(READING)
    .model(READY_ANSWER_MODELS)
    .use(health(runtime))
    .use(await dashboard(runtime))
    .use(await controlPlane(runtime));
  return withDeveloperApi(root, runtime);
}

export function createApp(runtime: Runtime) {
  const { services, logger, control } = runtime;
  const routes = new RouteTable();
  // Every answer is reported before it is sent: to the request log, and, when tracing, the first one to the
  // start-up trace (common/startup-trace.ts).
  const observers: AnswerObserver[] = [control.requestLog.observe];
  if (runtime.config.traceStartup) observers.push(firstResponseObserver());

  /** A part of the app: its routes behind the one error handler, built on its first request. */
  const part = (build: () => Promise<AnyElysia>) =>
    onFirstUse(async () => {
      const app = new Elysia(READING).use(errorHandler(logger, (path) => routes.allowed(path))).use(await build());
      routes.add(app.routes);
      return app;
    });
  const controlPart = part(() => controlPlane(runtime));
  const dashboardPart = part(() => dashboard(runtime));
  const docsPart = part(async () => {
    const { docsPlugin } = await import("../docs/openapi");
    return docsPlugin(
      () => everyRoute(runtime),
      (request) => (app.server ? addressedTo(request) : null),
    );
  });
  // The request, as it is, to the part that owns its path: the part routes, validates and answers it; the
  // pre-routing step and the answer step are this app's, once per request.
  const delegate =
    (to: () => Promise<AnyElysia>) =>
    async ({ request }: { request: Request }) =>
      (await to()).handle(request);
  const lazily = { parse: "none", detail: { hide: true } } as const;
  // The dashboard's page, scripts and login, only on this run's own origin (server/dashboard/origin.ts).
  const toDashboard = delegate(dashboardPart);
  const onDashboardOrigin = async ({ request }: { request: Request }) => {
    if (addressedToDashboard(request, control.dashboardLabel)) return toDashboard({ request });
    revokeCodesInUrl(request.url, control.sessions.revokeIfCode);
    return notHereAnswer();
  };

  const root = new Elysia(READING)
    .use(
      preRouting({
        clock: runtime.clock,
        faults: control.faults,
        // Bound to loopback, or given host names: the Host check, on every route (DNS rebinding).
        hostGate:
          isLoopback(runtime.config.host) || runtime.config.allowedHosts.length > 0
            ? hostGate(runtime.config.allowedHosts, control.dashboardLabel)
            : null,
        controlGate: adminGate({
          adminToken: control.adminToken,
          open: control.open,
          sessions: control.sessions,
          isDeveloperKey: (authorization) => services.auth.isKey(authorization),
        }),
        developerGate: developerGate(services.auth, runtime.rateLimiter, routes, control.isAdminToken),
        // A request a fault rule held, handled by the whole app once the rule's latency is over.
        handleAgain: (request) => app.handle(request),
      }),
    )
    .use(errorHandler(logger, (path) => routes.allowed(path)))
    .use(answers(observers, runtime.profile ? answerChanges(runtime.profile.compiled) : null))
    .use(health(runtime))
    .all(CONTROL_PREFIX, delegate(controlPart), lazily)
    .all(`${CONTROL_PREFIX}/*`, delegate(controlPart), lazily)
    .all("/", onDashboardOrigin, lazily)
    .all(FAVICON_PATH, toDashboard, lazily)
    .all(`${UI_PREFIX}*`, onDashboardOrigin, lazily)
    .all(LOGIN_PATH, onDashboardOrigin, lazily)
    .all(DOCS_PATH, delegate(docsPart), lazily)
    .all(`${DOCS_PATH}/*`, delegate(docsPart), lazily)
    .all(OPENAPI_PATH, delegate(docsPart), lazily);
  const app = withDeveloperApi(root, runtime);
  routes.add(app.routes);
  return app;
}

export type App = ReturnType<typeof createApp>;

/** The origin a request was sent to: its Host, checked by the pre-routing step before any route answers. */
function addressedTo(request: Request): string | null {
  const target = requestTarget(request, request.url);
  return "host" in target ? `http://${target.host}` : null;
}
