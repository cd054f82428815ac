/**
 * `ext serve --auto-approve[=DELAY_MS]`: every valid submission is approved by itself after the delay
 * (real milliseconds, not emulator time). Only versions that passed inspection are ever submitted, so
 * "valid" needs no further check. Timers live in the control-plane state: a reset or a stop cancels them.
 */
import type { Runtime } from "../runtime";

export function startAutoApprove(runtime: Runtime, delayMs: number): void {
  const { control, logger } = runtime;
  runtime.services.versions.onSubmitted(({ id }) => {
    const timer = setTimeout(() => {
      control.timers.delete(timer);
      try {
        runtime.services.versions.approveVersion(id);
        logger.debug("auto-approved", { versionId: id });
      } catch (e) {
        // The version may be gone (extension deleted, reset) or archived in the meantime: nothing to approve.
        logger.debug("auto-approve skipped", { versionId: id, reason: (e as Error).message });
      }
    }, delayMs);
    control.timers.add(timer);
  });
}
