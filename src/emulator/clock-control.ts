/** The clock operations of POST /_emulator/clock, on the runtime's EmulatorClock. */
import { ClockRangeError, type ClockState, type EmulatorClock } from "../clock";
import { errors } from "../errors/catalog";
import type { ClockBody } from "./model";

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
      const instant = Date.parse(body.set);
      if (!Number.isFinite(instant)) throw errors.clockBodyInvalid();
      // Date.parse rolls 2030-02-30 over to 2030-03-02: a day the calendar does not have is refused instead.
      const day = /^(\d{4})-(\d{2})-(\d{2})/.exec(body.set);
      if (day) {
        const [y, m, d] = [Number(day[1]), Number(day[2]), Number(day[3])];
        if (new Date(Date.UTC(y, m - 1, d)).getUTCDate() !== d) throw errors.clockDayInvalid(day[0]);
      }
      clock.set(instant, body.freeze ?? false);
    } else if (body.mode === "real") clock.reset();
    else clock.freeze();
  } catch (e) {
    if (e instanceof ClockRangeError)
      throw errors.clockOutOfRange(body.advanceSeconds !== undefined ? "advanceSeconds" : "set");
    throw e;
  }
  return clock.state();
}
