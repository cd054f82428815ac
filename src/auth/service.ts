/**
 * Authentication of developer API keys. The presented key is hashed (keyed: src/auth/keys.ts) and the hash is
 * looked up through a unique index: the plaintext is never compared, so lookup time does not depend on how
 * much of a guessed key is right. A row still holding the legacy unsalted hash is found by that one and
 * upgraded to the keyed hash on the spot.
 *
 * A key that authenticated is remembered (by the header as sent, in process memory only) until the database
 * generation moves: a repeated request then costs neither the hash nor the lookup, and a revoked key, a
 * deleted account or a reset is seen at the next request. A key that failed is remembered the same way, so a
 * client retrying a wrong key does not pay the hash either; the memory is bounded, so a stream of invented
 * keys cannot grow it.
 */
import type { Db } from "../db/database";
import type { DbGeneration } from "../db/generation";
import { createReadCache } from "../db/read-cache";
import { errors } from "../errors/catalog";
import { type KeyHasher, legacyKeyHash } from "./keys";

export interface Principal {
  accountId: string;
  keyId: string;
  scopes: readonly string[];
}

export interface AuthService {
  /**
   * Throws 401 `unauthorized` for a missing, malformed, unknown or revoked key. Called once at the start of
   * every developer-API request.
   */
  authenticate(authorization: string | null): Principal;
  /** Whether the header carries a live (not revoked) developer API key; never throws. */
  isKey(authorization: string): boolean;
}

const BEARER = /^bearer[ \t]+(\S+)[ \t]*$/i;

/** Distinct keys remembered at once; past it the memory starts over (a test suite uses a handful). */
export const PRINCIPAL_CACHE_MAX = 256;

export function createAuthService(db: Db, generation: DbGeneration, hasher: KeyHasher): AuthService {
  const lookup = db.$client.prepare<{ id: string; account_id: string; scopes: string }, [string]>(
    "SELECT id, account_id, scopes FROM api_keys WHERE key_hash = ? AND revoked_at IS NULL",
  );
  const upgrade = db.$client.prepare<unknown, [string, string]>("UPDATE api_keys SET key_hash = ? WHERE id = ?");
  const find = (plaintext: string) => {
    const keyed = hasher.hash(plaintext);
    const row = lookup.get(keyed);
    if (row) return row;
    const legacy = lookup.get(legacyKeyHash(plaintext));
    if (legacy) {
      try {
        upgrade.run(keyed, legacy.id);
      } catch {
        // A read-only or busy database: the key still authenticates; the upgrade waits for its next use.
      }
    }
    return legacy;
  };
  // Accounts have a handful of distinct scope sets: parse each JSON text once, not on every request.
  const parsedScopes = new Map<string, readonly string[]>();
  const scopesOf = (text: string) => {
    let scopes = parsedScopes.get(text);
    if (!scopes) parsedScopes.set(text, (scopes = Object.freeze(JSON.parse(text) as string[])));
    return scopes;
  };
  // Remembered by the header as sent, an unknown key too (bounded, and forgotten at the next commit: a key
  // created since is found then).
  const known = createReadCache<Principal | "malformed" | "invalid">(generation, PRINCIPAL_CACHE_MAX);
  return {
    authenticate(authorization) {
      if (!authorization) throw errors.unauthorized("missing");
      const found = known.get(authorization, () => {
        const match = BEARER.exec(authorization);
        if (!match) return "malformed";
        const row = find(match[1]!);
        if (!row) return "invalid";
        return Object.freeze({ accountId: row.account_id, keyId: row.id, scopes: scopesOf(row.scopes) });
      });
      if (typeof found === "string") throw errors.unauthorized(found);
      return found;
    },
    isKey(authorization) {
      const match = BEARER.exec(authorization);
      return match !== null && Boolean(find(match[1]!));
    },
  };
}
