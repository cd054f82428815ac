/** The clock's reported state reads the machine's time once, so a running clock's offset is exact. */
import { expect, test } from "bun:test";
import { EmulatorClock } from "../../server/base/clock";

test("a running clock at real time reports an offset of 0 even when the machine's time ticks between reads", () => {
  let ms = 1_800_000_000_000;
  const clock = new EmulatorClock(() => ms++);
  expect(clock.state().offsetMs).toBe(0);
  clock.set(1_900_000_000_000);
  expect(clock.state().offsetMs).toBe(1_900_000_000_000 - 1_800_000_000_000 - 1);
});
