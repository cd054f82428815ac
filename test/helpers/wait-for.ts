/**
 * Waits until `condition` returns something truthy, checking it every few milliseconds: for state that
 * announces no event a test could await (a file appearing, a row changing). The result is returned, so the
 * test can assert on what it waited for. Bounded by a generous deadline only so that a condition that never
 * comes fails with its name rather than as a bare test timeout; it is no statement about speed.
 */
export async function waitFor<T>(
  condition: () => T | Promise<T>,
  what: string,
  deadlineMs = 20_000,
): Promise<Truthy<T>> {
  const giveUp = performance.now() + deadlineMs;
  for (;;) {
    const value = await condition();
    if (value) return value as Truthy<T>;
    if (performance.now() > giveUp) throw new Error(`gave up waiting for ${what}`);
    await Bun.sleep(POLL_MS);
  }
}

type Truthy<T> = Exclude<T, false | 0 | "" | null | undefined>;

/** Short enough to add nothing noticeable to a test, long enough not to keep a core busy. */
const POLL_MS = 5;
