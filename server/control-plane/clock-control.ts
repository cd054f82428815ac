/** The clock operations of POST /_emulator/clock, on the runtime's EmulatorClock. */
import { ClockRangeError, type ClockState, type EmulatorClock, readInstant } from "../base/clock";
import { errors } from "../errors/catalog";
import type { ClockBody } from "../runtime/control-state/model";

/**
 * Exactly one operation per call: `advanceSeconds` (a frozen clock stays frozen), `set` (+ `freeze`),
 * `mode: "real"` (back to the machine's time, offset dropped) or `mode: "frozen"` (stop where it is).
 */
export function changeClock(clock: EmulatorClock, body: ClockBody): ClockState {
  const ops = [body.advanceSeconds !== undefined, body.set !== undefined, body.mode !== undefined].filter(
    Boolean,
  ).length;
  if (ops !== 1 || (body.freeze !== undefined && body.set === undefined)) throw errors.clockBodyInvalid();
  try {
    if (body.advanceSeconds !== undefined) clock.advance(body.advanceSeconds);
    else if (body.set !== undefined) {
      const instant = readInstant(body.set);
      if (instant.problem !== undefined) throw errors.instantInvalid("set", instant.problem);
      clock.set(instant.ms, body.freeze ?? false);
    } else if (body.mode === "real") clock.reset();
    else clock.freeze();
  } catch (e) {
    if (e instanceof ClockRangeError)
      throw errors.clockOutOfRange(body.advanceSeconds !== undefined ? "advanceSeconds" : "set");
    throw e;
  }
  return clock.state();
}
