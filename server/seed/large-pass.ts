/**
 * A fixture's check and its load are long synchronous passes, one account after another, that leave short-lived
 * objects behind for every entry (the schema check's key lists, each statement's parameters) faster than the
 * collector reclaims them while the pass runs: a 20,000-account fixture's peak memory grew by tens of MB of
 * garbage alone. A minor collection every so many accounts keeps that peak down (bench: "large-fixture").
 */
const ACCOUNTS_PER_COLLECTION = 1000;

/** Call once per account of a pass; every ACCOUNTS_PER_COLLECTION calls, a minor collection runs. */
export function collectingPass(): () => void {
  let accounts = 0;
  return () => {
    if (++accounts % ACCOUNTS_PER_COLLECTION === 0) Bun.gc(false);
  };
}
