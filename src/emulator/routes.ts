/**
 * The control plane under /_emulator: every route tagged "Emulator" in the OpenAPI document. Who may call
 * it is decided by `adminGate` (admin-auth.ts), registered by the app before any route runs.
 */
import { Elysia } from "elysia";
import { CONTROL_PREFIX } from "../config";
import type { Runtime } from "../runtime";
import { accountRoutes } from "./accounts";
import { clockRoutes } from "./clock";
import { dashboardDataRoutes } from "./dashboard";
import { faultRoutes } from "./faults";
import { installControlRoutes } from "./installs";
import { limitRequestRoutes } from "./limit-requests";
import { overrideRoutes } from "./overrides";
import { requestLogRoutes } from "./requests";
import { reviewRoutes } from "./review";
import { stateRoutes } from "./state";

export function controlPlaneRoutes(runtime: Runtime) {
  const { services } = runtime;
  return new Elysia({ prefix: CONTROL_PREFIX, name: "control-plane" })
    .use(stateRoutes(runtime))
    .use(clockRoutes(runtime))
    .use(faultRoutes(runtime))
    .use(requestLogRoutes(runtime))
    .use(accountRoutes(services.accounts, (keyId) => runtime.control.requestLog.lastUsedAt(keyId)))
    .use(overrideRoutes(services.overrides))
    .use(limitRequestRoutes(services.limitRequests))
    .use(reviewRoutes(runtime))
    .use(installControlRoutes(services.installs))
    .use(dashboardDataRoutes(services));
}
