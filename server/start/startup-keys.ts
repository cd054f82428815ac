/**
 * The developer keys whose plaintext a start knows: the start-up fixture's own, the ones it left to be
 * generated, and the starter account's. `ext serve` shows them on a terminal and the ready file lists them,
 * so a script that sends the output elsewhere still has them. A generated key is stored as a hash only:
 * this start is the one time it exists in plaintext.
 */

import type { Runtime } from "../runtime/runtime";
import { STARTER_KEY_NAME } from "../seed/starter";

export interface StartupKey {
  accountId: string;
  name: string;
  key: string;
  /** fixture: written in the fixture file; generated: made for a fixture key that had none; starter: the new account's. */
  origin: "fixture" | "generated" | "starter";
}

export function startupKeys(runtime: Runtime): StartupKey[] {
  const keys: StartupKey[] = [];
  for (const acc of runtime.startupFixture?.accounts ?? [])
    for (const k of acc.apiKeys ?? [])
      if (k.key) keys.push({ accountId: acc.id, name: k.name, key: k.key, origin: "fixture" });
  for (const k of runtime.startupSeedReport?.keys ?? [])
    if (k.key) keys.push({ accountId: k.accountId, name: k.name, key: k.key, origin: "generated" });
  const { starter } = runtime;
  if (starter) keys.push({ accountId: starter.accountId, name: STARTER_KEY_NAME, key: starter.key, origin: "starter" });
  return keys;
}
