/**
 * The account a bare `ext serve` makes on a data directory that has none: without it a first run is a dead
 * end (no account to act as, no key to use). Loaded through the fixture loader like any seed, so it is an
 * ordinary account with an ordinary key, whose plaintext is returned this once and stored as a hash.
 */
import type { Fixture } from "./model";

export const STARTER_ACCOUNT_ID = "acc_local";
export const STARTER_ACCOUNT_NAME = "Local Developer";
export const STARTER_KEY_NAME = "local";

export function starterFixture(): Fixture {
  return {
    accounts: [
      {
        id: STARTER_ACCOUNT_ID,
        name: STARTER_ACCOUNT_NAME,
        apiKeys: [{ name: STARTER_KEY_NAME, scopes: ["*"] }],
      },
    ],
  };
}

/** The starter account as `ext serve` reports it, its key in plaintext (shown once). */
export interface StarterAccount {
  accountId: string;
  name: string;
  key: string;
}
