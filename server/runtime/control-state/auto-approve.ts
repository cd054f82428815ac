/**
 * `ext serve --auto-approve[=DELAY_MS]`: every valid submission is approved by itself after the delay
 * (real milliseconds, not emulator time). Only versions that passed inspection are ever submitted, so
 * "valid" needs no further check. Timers live in the control-plane state: a reset or a stop cancels them.
 *
 * Takes the pieces it uses, not the Runtime: the runtime starts it, so depending on the runtime's module
 * would make an import cycle.
 */
import type { Logger } from "../../base/logger";
import type { VersionService } from "../../resources/versions/service";
import type { ControlPlane } from "./control";

export interface AutoApproveDeps {
  versions: Pick<VersionService, "onSubmitted" | "approveVersion">;
  control: Pick<ControlPlane, "timers">;
  logger: Logger;
}

export function startAutoApprove({ versions, control, logger }: AutoApproveDeps, delayMs: number): void {
  versions.onSubmitted(({ id }) => {
    const timer = setTimeout(() => {
      control.timers.delete(timer);
      try {
        versions.approveVersion(id);
        logger.debug("auto-approved", { versionId: id });
      } catch (e) {
        // The version may be gone (extension deleted, reset) or archived in the meantime: nothing to approve.
        logger.debug("auto-approve skipped", { versionId: id, reason: (e as Error).message });
      }
    }, delayMs);
    control.timers.add(timer);
  });
}
