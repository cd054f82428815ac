/**
 * The control plane under /_emulator: every route tagged "Emulator" in the OpenAPI document. Who may call
 * it is decided by `adminGate` (admin-auth.ts), registered by the app before any route runs; each route here
 * also requires the mark that gate sets, so one the gate did not pass never runs (fail closed).
 */
import { Elysia } from "elysia";
import { CONTROL_PREFIX } from "../../common/addresses";
import { requireAdminMark } from "../runtime/control-state/admin-auth";
import type { Runtime } from "../runtime/runtime";
import { accountRoutes } from "./accounts";
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
      // Before routing, so before any route reads a body (an export archive is staged to disk by the seed
      // route's parser). It holds for the app the control plane is a part of, which serves /_emulator alone
      // (server/start/app.ts); a parse hook would make every route read its body, a body-less one included.
      .onRequest(requireAdminMark)
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
