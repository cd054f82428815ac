/**
 * The one writer of `api_keys`: the API's keys, the dashboard's, a fixture's and an export's are all inserted
 * here, inside the caller's transaction, with the rules every key row keeps — its hash held by no other key
 * (for a plaintext, neither its keyed hash nor the bare SHA-256 older data directories stored), and, for an
 * active key, room under `max_api_keys` as it resolves for the account.
 */
import { and, count, eq, isNull, sql } from "drizzle-orm";
import { type KeyHasher, keyPrefix, legacyKeyHash } from "../../auth/keys";
import type { Clock } from "../../base/clock";
import { newId } from "../../base/ids";
import { onFirstUse } from "../../base/on-first-use";
import type { Db } from "../../db/database";
import { apiKeys } from "../../db/schema";
import { errors } from "../../errors/catalog";
import type { LimitsService } from "../limits/service";

const p = sql.placeholder;

export type KeyRow = typeof apiKeys.$inferSelect;

/** A key to insert: its plaintext (hashed here), or the hash and prefix an export recorded. */
export type NewApiKey = {
  accountId: string;
  name: string;
  scopes: readonly string[];
  /** Generated when absent. */
  id?: string;
  createdAt: string;
  revokedAt?: string | null;
  /** What listings show of the key; for a plaintext, its first characters when absent. */
  keyPrefix?: string;
} & ({ plaintext: string } | { keyHash: string });

export function createKeyWriter(deps: { db: Db; clock: Clock; limits: LimitsService; keyHasher: KeyHasher }) {
  const { db, clock, limits, keyHasher } = deps;
  const byIdStmt = onFirstUse(() =>
    db
      .select({ id: apiKeys.id, accountId: apiKeys.accountId })
      .from(apiKeys)
      .where(eq(apiKeys.id, p("id")))
      .prepare(),
  );
  const byHashStmt = onFirstUse(() =>
    db
      .select({ id: apiKeys.id, accountId: apiKeys.accountId })
      .from(apiKeys)
      .where(eq(apiKeys.keyHash, p("hash")))
      .prepare(),
  );
  const activeNamedStmt = onFirstUse(() =>
    db
      .select({ id: apiKeys.id, accountId: apiKeys.accountId })
      .from(apiKeys)
      .where(and(eq(apiKeys.accountId, p("accountId")), eq(apiKeys.name, p("name")), isNull(apiKeys.revokedAt)))
      .prepare(),
  );
  const activeCountStmt = onFirstUse(() =>
    db
      .select({ n: count() })
      .from(apiKeys)
      .where(and(eq(apiKeys.accountId, p("accountId")), isNull(apiKeys.revokedAt)))
      .prepare(),
  );
  const insertStmt = onFirstUse(() =>
    db
      .insert(apiKeys)
      .values({
        id: p("id"),
        accountId: p("accountId"),
        name: p("name"),
        keyHash: p("keyHash"),
        keyPrefix: p("keyPrefix"),
        scopes: p("scopes"),
        createdAt: p("createdAt"),
        revokedAt: p("revokedAt"),
      })
      .prepare(),
  );

  /** The active-key cap, its one home. */
  function checkRoom(accountId: string): void {
    const max = limits.resolve("max_api_keys", { accountId }).value;
    const active = activeCountStmt().get({ accountId })?.n ?? 0;
    if (active >= max) throw errors.limitExceeded("max_api_keys", max, active, "active API keys per account");
  }

  return {
    /** The key with this id, if any. */
    byId: (id: string) => byIdStmt().get({ id }),
    /** The key stored under this hash, if any. */
    byHash: (hash: string) => byHashStmt().get({ hash }),
    /** The account's active key of this name, if any. */
    activeNamed: (accountId: string, name: string) => activeNamedStmt().get({ accountId, name }),

    insertKey(input: NewApiKey): KeyRow {
      const plaintext = "plaintext" in input ? input.plaintext : null;
      const keyHash = "plaintext" in input ? keyHasher.hash(input.plaintext) : input.keyHash;
      if (
        byHashStmt().get({ hash: keyHash }) ||
        (plaintext !== null && byHashStmt().get({ hash: legacyKeyHash(plaintext) }))
      )
        throw errors.apiKeyTaken(plaintext === null ? "keyHash" : "key");
      if (input.id !== undefined && byIdStmt().get({ id: input.id })) throw errors.idTaken(input.id, "another API key");
      if (!input.revokedAt) checkRoom(input.accountId);
      const row: KeyRow = {
        id: input.id ?? newId("key", clock.nowMs()),
        accountId: input.accountId,
        name: input.name,
        keyHash,
        keyPrefix: input.keyPrefix ?? keyPrefix(plaintext ?? ""),
        scopes: JSON.stringify(input.scopes),
        createdAt: input.createdAt,
        revokedAt: input.revokedAt ?? null,
      };
      insertStmt().run(row);
      return row;
    },
  };
}

export type KeyWriter = ReturnType<typeof createKeyWriter>;
