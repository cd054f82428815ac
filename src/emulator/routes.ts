/**
 * The control plane under /_emulator: every route tagged "Emulator" in the OpenAPI document. Who may call
 * it is decided by `adminGate` (admin-auth.ts), registered by the app before any route runs; each route here
 * also requires the mark that gate sets, so one the gate did not pass never runs (fail closed).
 */
import { Elysia } from "elysia";
import { CONTROL_PREFIX } from "../config";
import type { Runtime } from "../runtime";
import { accountRoutes } from "./accounts";
import { requireAdminMark } from "./admin-auth";
import { clockRoutes } from "./clock";
import { dashboardDataRoutes } from "./dashboard";
import { exportRoutes } from "./exports";
import { faultRoutes } from "./faults";
import { installControlRoutes } from "./installs";
import { limitRequestRoutes } from "./limit-requests";
import { loginLinkRoutes } from "./login-link";
import { overrideRoutes } from "./overrides";
import { requestLogRoutes } from "./requests";
import { reviewRoutes } from "./review";
import { stateRoutes } from "./state";

export function controlPlaneRoutes(runtime: Runtime) {
  const { services } = runtime;
  return (
    new Elysia({ prefix: CONTROL_PREFIX, name: "control-plane" })
      // Local: every route below, the plugins' included, and nothing outside /_emulator. The parse hook runs
      // before a route's own parser (an export archive is staged to disk there); it returns nothing, so the
      // route's parser still reads the body.
      .onParse(({ request }) => void requireAdminMark({ request }))
      .onTransform(requireAdminMark)
      .use(stateRoutes(runtime))
      .use(loginLinkRoutes(runtime))
      .use(exportRoutes(runtime))
      .use(clockRoutes(runtime))
      .use(faultRoutes(runtime))
      .use(requestLogRoutes(runtime))
      .use(accountRoutes(services.accounts, (keyId) => runtime.control.requestLog.lastUsedAt(keyId)))
      .use(overrideRoutes(services.overrides))
      .use(limitRequestRoutes(services.limitRequests))
      .use(reviewRoutes(runtime))
      .use(installControlRoutes(services.installs))
      .use(dashboardDataRoutes(services))
  );
}
