/**
 * The control plane's own in-memory state: the effective admin token, the fault rules, the request log and
 * the pending auto-approvals. Lives on the runtime so a reset can clear it and `close()` can stop timers.
 */
import type { Clock } from "../clock";
import { isLoopback, type ServerConfig } from "../config";
import { adminBearerCheck, generateAdminToken } from "./admin-auth";
import { FaultInjector } from "./fault-injector";
import { RequestLog } from "./request-log";

export interface ControlPlane {
  /** `--admin-token`, or one generated at start. */
  adminToken: string;
  /** True when the token was generated (so `ext serve` prints it on a non-loopback bind). */
  adminTokenGenerated: boolean;
  /** Loopback bind: requests without an Authorization header are let in. */
  openWithoutToken: boolean;
  isAdminToken(authorization: string | null): boolean;
  faults: FaultInjector;
  requestLog: RequestLog;
  /** Timers of submissions waiting to be auto-approved; a reset or close cancels them. */
  timers: Set<ReturnType<typeof setTimeout>>;
  cancelTimers(): void;
}

export function createControlPlane(config: ServerConfig, clock: Clock): ControlPlane {
  const adminToken = config.adminToken ?? generateAdminToken();
  const timers = new Set<ReturnType<typeof setTimeout>>();
  return {
    adminToken,
    adminTokenGenerated: config.adminToken === null,
    openWithoutToken: isLoopback(config.host),
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
