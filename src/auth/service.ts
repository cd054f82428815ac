/**
 * Authentication of developer API keys. The presented key is hashed (SHA-256) and the hash is looked up
 * through a unique index: the plaintext is never compared, so lookup time does not depend on how much of
 * a guessed key is right. One prepared statement, no JSON work beyond the scopes array.
 */
import type { Db } from "../db/database";
import { errors } from "../errors/catalog";
import { hashApiKey } from "./keys";

export interface Principal {
  accountId: string;
  keyId: string;
  scopes: readonly string[];
}

export interface AuthService {
  /** Throws 401 `unauthorized` for a missing, malformed, unknown or revoked key. */
  authenticate(authorization: string | null): Principal;
  /** Whether the header carries a live (not revoked) developer API key; never throws. */
  isKey(authorization: string): boolean;
}

const BEARER = /^bearer[ \t]+(\S+)[ \t]*$/i;

export function createAuthService(db: Db): AuthService {
  const lookup = db.$client.prepare<{ id: string; account_id: string; scopes: string }, [string]>(
    "SELECT id, account_id, scopes FROM api_keys WHERE key_hash = ? AND revoked_at IS NULL",
  );
  // Accounts have a handful of distinct scope sets: parse each JSON text once, not on every request.
  const parsedScopes = new Map<string, readonly string[]>();
  const scopesOf = (text: string) => {
    let scopes = parsedScopes.get(text);
    if (!scopes) parsedScopes.set(text, (scopes = Object.freeze(JSON.parse(text) as string[])));
    return scopes;
  };
  return {
    authenticate(authorization) {
      if (!authorization) throw errors.unauthorized("missing");
      const match = BEARER.exec(authorization);
      if (!match) throw errors.unauthorized("malformed");
      const row = lookup.get(hashApiKey(match[1]!));
      if (!row) throw errors.unauthorized("invalid");
      return { accountId: row.account_id, keyId: row.id, scopes: scopesOf(row.scopes) };
    },
    isKey(authorization) {
      const match = BEARER.exec(authorization);
      return match !== null && Boolean(lookup.get(hashApiKey(match[1]!)));
    },
  };
}
