/**
 * The control plane's own in-memory state: the effective admin token, the fault rules, the request log and
 * the pending auto-approvals. Lives on the runtime so a reset can clear it and `close()` can stop timers.
 */

import { urlHost } from "../../../common/addresses";
import { dashboardOrigin } from "../../../common/dashboard-links";
import type { Clock } from "../../base/clock";
import type { ServerConfig } from "../../base/config";
import { adminBearerCheck, generateAdminToken } from "./admin-auth";
import { createDashboardSessions, type DashboardSessions, newDashboardLabel } from "./dashboard-session";
import { FaultInjector } from "./fault-injector";
import { RequestLog } from "./request-log";

export interface ControlPlane {
  /** `--admin-token`, or one generated at start. */
  adminToken: string;
  /** True when the token was generated (so `ext serve` says where to find it). */
  adminTokenGenerated: boolean;
  /** --open-control-plane (loopback binds only): requests without an Authorization header are let in. */
  open: boolean;
  /**
   * This server's origin as server.json names it (http://host:port): the server proof's message holds it.
   * The configured port until the server listens (server/start/server.ts sets the bound one).
   */
  url: string;
  /**
   * This run's dashboard label, drawn at random by each start (server/dashboard/origin.ts): the dashboard is
   * served at `http://<label>.localhost:<port>` (dashboardUrl) and nowhere else.
   */
  dashboardLabel: string;
  /** The dashboard's origin; the configured port until the server listens, as `url`. */
  dashboardUrl: string;
  /**
   * Lifts the idle-connection limit for one request whose answer is a live stream (the request log's): the
   * limit is for keep-alive connections between requests. server/start/server.ts sets it once it listens; served
   * without a listener (app.handle), there is no limit to lift.
   */
  holdOpen(request: Request): void;
  /** The dashboard's one-time login codes and its sessions. */
  sessions: DashboardSessions;
  isAdminToken(authorization: string | null): boolean;
  faults: FaultInjector;
  requestLog: RequestLog;
  /** Timers of submissions waiting to be auto-approved; a reset or close cancels them. */
  timers: Set<ReturnType<typeof setTimeout>>;
  cancelTimers(): void;
}

export function createControlPlane(config: ServerConfig, clock: Clock): ControlPlane {
  const adminToken = config.adminToken ?? generateAdminToken();
  const dashboardLabel = newDashboardLabel();
  const timers = new Set<ReturnType<typeof setTimeout>>();
  return {
    adminToken,
    adminTokenGenerated: config.adminToken === null,
    open: config.openControlPlane,
    url: `http://${urlHost(config.host)}:${config.port}`,
    dashboardLabel,
    dashboardUrl: dashboardOrigin(dashboardLabel, config.port),
    holdOpen: () => {},
    sessions: createDashboardSessions(),
    isAdminToken: adminBearerCheck(adminToken),
    faults: new FaultInjector(clock),
    requestLog: new RequestLog(),
    timers,
    cancelTimers() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
}
