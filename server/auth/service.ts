/**
 * Authentication of developer API keys. The presented key is hashed (keyed: server/auth/keys.ts) and the hash is
 * looked up through a unique index: the plaintext is never compared, so lookup time does not depend on how
 * much of a guessed key is right. A row still holding the legacy unsalted hash is found by that one and
 * upgraded to the keyed hash on the spot.
 *
 * A key that authenticated is remembered (by the header as sent, in process memory only) until a write that
 * may change keys or accounts commits (`db.credentialsGeneration`: every write but the hot ones marked as
 * leaving them alone): a repeated request then costs neither the hash nor the lookup, and a revoked key, a
 * deleted account or a reset is seen at the next request. After such a commit only the lookup runs again:
 * the keyed hash of a key depends on the key alone, so it is computed once per distinct key. A key that failed
 * is remembered the same way, so a client retrying a wrong key does not pay the hash either; the memory is
 * bounded, so a stream of invented keys cannot grow it.
 */
import { and, eq, isNull, sql } from "drizzle-orm";
import { onFirstUse } from "../base/on-first-use";
import { type Db, param } from "../db/database";
import type { DbGeneration } from "../db/generation";
import { createReadCache } from "../db/read-cache";
import { apiKeys } from "../db/schema";
import { errors } from "../errors/catalog";
import { bearerToken } from "./bearer";
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

/** Distinct keys remembered at once; past it the memory starts over (a test suite uses a handful). */
export const PRINCIPAL_CACHE_MAX = 256;

export function createAuthService(db: Db, generation: DbGeneration, hasher: KeyHasher): AuthService {
  const lookupStmt = onFirstUse(() =>
    db
      .select({ id: apiKeys.id, accountId: apiKeys.accountId, scopes: apiKeys.scopes })
      .from(apiKeys)
      .where(and(eq(apiKeys.keyHash, sql.placeholder("hash")), isNull(apiKeys.revokedAt)))
      .prepare(),
  );
  const lookup = (hash: string) => lookupStmt().get({ hash });
  const upgradeStmt = onFirstUse(() =>
    db
      .update(apiKeys)
      .set({ keyHash: param("hash") })
      .where(eq(apiKeys.id, sql.placeholder("id")))
      .prepare(),
  );
  const upgrade = db.writer((hash: string, id: string) => upgradeStmt().run({ hash, id }));
  // Kept across commits (bounded like the principals): the keyed hash of a key depends on the key alone.
  const keyedHashes = new Map<string, string>();
  const keyedHashOf = (plaintext: string) => {
    let keyed = keyedHashes.get(plaintext);
    if (keyed === undefined) {
      if (keyedHashes.size >= PRINCIPAL_CACHE_MAX) keyedHashes.clear();
      keyedHashes.set(plaintext, (keyed = hasher.hash(plaintext)));
    }
    return keyed;
  };
  const find = (plaintext: string) => {
    const keyed = keyedHashOf(plaintext);
    const row = lookup(keyed);
    if (row) return row;
    const legacy = lookup(legacyKeyHash(plaintext));
    if (legacy) {
      try {
        upgrade(keyed, legacy.id);
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
  // Remembered by the header as sent, an unknown key too (bounded, and forgotten at the next commit that may
  // change credentials: a key created since is found then).
  const known = createReadCache<Principal | "malformed" | "invalid">(generation, PRINCIPAL_CACHE_MAX);
  return {
    authenticate(authorization) {
      if (!authorization) throw errors.unauthorized("missing");
      const found = known.get(authorization, () => {
        const token = bearerToken(authorization);
        if (token === null) return "malformed";
        const row = find(token);
        if (!row) return "invalid";
        return Object.freeze({ accountId: row.accountId, keyId: row.id, scopes: scopesOf(row.scopes) });
      });
      if (typeof found === "string") throw errors.unauthorized(found);
      return found;
    },
    isKey(authorization) {
      const token = bearerToken(authorization);
      return token !== null && Boolean(find(token));
    },
  };
}
