/**
 * The key the dashboard uses when it acts as an account on the developer API (listing, patching and
 * deleting extensions, secrets, installs): an ordinary API key named "dashboard" with scope `*`, created
 * through the same `createKey` as any other (so it counts against `max_api_keys` and shows in the key
 * list). Its plaintext is derived from the data directory's secrets key, the account (its id and when it was
 * created) and a sequence number, and never written anywhere: a restart finds the same key again instead of
 * adding one each time, which would fill the account's key cap. A revoked one is followed by the next of the
 * sequence. A reset makes the accounts anew (a new creation time, so a new sequence) and wipes the revoked
 * rows: where each sequence stood is kept in memory and read from the rows before they are wiped, so a
 * revoked key is not made again for an account whose creation time a fixture fixes either.
 */
import { eq } from "drizzle-orm";
import type { KeyHasher } from "../auth/keys";
import type { Db } from "../db/database";
import { accounts as accountRows, apiKeys } from "../db/schema";
import { ApiError } from "../errors/api-error";
import { errors } from "../errors/catalog";
import type { LimitsService } from "../limits/service";
import type { ApiKey } from "./model";
import type { AccountService } from "./service";

export const DASHBOARD_KEY_NAME = "dashboard";

export function createDashboardKeys(deps: {
  db: Db;
  accounts: AccountService;
  limits: LimitsService;
  keyHasher: KeyHasher;
}) {
  const rowOf = (hash: string) =>
    deps.db
      .select({ id: apiKeys.id, accountId: apiKeys.accountId, revokedAt: apiKeys.revokedAt })
      .from(apiKeys)
      .where(eq(apiKeys.keyHash, hash))
      .get();
  const createdAtOf = (accountId: string) =>
    deps.db.select({ createdAt: accountRows.createdAt }).from(accountRows).where(eq(accountRows.id, accountId)).get()
      ?.createdAt;
  /** Per account, the first sequence number not known to be revoked: those below it are never made again. */
  const firstUsable = new Map<string, number>();

  /**
   * From `firstUsable`, past every key of the sequence that exists but cannot be used (revoked, or another
   * account's): as many steps as the account has revoked dashboard keys.
   */
  function walk(accountId: string) {
    const createdAt = createdAtOf(accountId);
    if (createdAt === undefined) throw errors.accountNotFound(accountId);
    for (let n = firstUsable.get(accountId) ?? 0; ; n++) {
      const plaintext = deps.keyHasher.derive(`dashboard key\n${accountId}\n${createdAt}\n${n}`);
      const row = rowOf(deps.keyHasher.hash(plaintext));
      if (row && (row.accountId !== accountId || row.revokedAt !== null)) continue;
      return { n, plaintext, row };
    }
  }

  return {
    /** The account's dashboard key, created when it has none that still works. */
    forAccount(accountId: string): { apiKey: ApiKey; plaintext: string; created: boolean } {
      const { n, plaintext, row } = walk(accountId);
      if (row) {
        firstUsable.set(accountId, n);
        const apiKey = deps.accounts.listKeys(accountId).find((k) => k.id === row.id)!;
        return { apiKey, plaintext, created: false };
      }
      try {
        const made = deps.accounts.createKey(accountId, { name: DASHBOARD_KEY_NAME, scopes: ["*"] }, plaintext);
        // Only for accounts that exist: the map is as large as the accounts are many.
        firstUsable.set(accountId, n);
        return { ...made, created: true };
      } catch (e) {
        if (e instanceof ApiError && e.code === "limit_exceeded")
          throw errors.dashboardKeyUnavailable(accountId, deps.limits.resolve("max_api_keys", { accountId }).value);
        throw e;
      }
    },
    /** Before every row is wiped (a reset): notes where each account's sequence stands, revocations included. */
    beforeWipe(): void {
      for (const { id } of deps.db.select({ id: accountRows.id }).from(accountRows).all())
        firstUsable.set(id, walk(id).n);
    },
  };
}

export type DashboardKeys = ReturnType<typeof createDashboardKeys>;
