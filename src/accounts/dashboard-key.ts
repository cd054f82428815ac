/**
 * The key the dashboard uses when it acts as an account on the developer API (listing, patching and
 * deleting extensions, secrets, installs): an ordinary API key named "dashboard" with scope `*`, created
 * through the same `createKey` as any other (so it counts against `max_api_keys` and shows in the key
 * list). Its plaintext is derived from the data directory's secrets key and the account, never written
 * anywhere: a restart or a reset finds the same key again instead of adding one each time, which would
 * fill the account's key cap. Revoked, the next key of the account's sequence is made.
 */
import { eq } from "drizzle-orm";
import type { KeyHasher } from "../auth/keys";
import type { Db } from "../db/database";
import { apiKeys } from "../db/schema";
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

  return {
    /** The account's dashboard key, created when it has none that still works. */
    forAccount(accountId: string): { apiKey: ApiKey; plaintext: string; created: boolean } {
      // Each step passes a key that exists but cannot be used (revoked), so the walk is as long as the
      // account's revoked dashboard keys.
      for (let n = 0; ; n++) {
        const plaintext = deps.keyHasher.derive(`dashboard key\n${accountId}\n${n}`);
        const row = rowOf(deps.keyHasher.hash(plaintext));
        if (row && row.accountId === accountId && row.revokedAt === null) {
          const apiKey = deps.accounts.listKeys(accountId).find((k) => k.id === row.id)!;
          return { apiKey, plaintext, created: false };
        }
        if (row) continue;
        try {
          return {
            ...deps.accounts.createKey(accountId, { name: DASHBOARD_KEY_NAME, scopes: ["*"] }, plaintext),
            created: true,
          };
        } catch (e) {
          if (e instanceof ApiError && e.code === "limit_exceeded")
            throw errors.dashboardKeyUnavailable(accountId, deps.limits.resolve("max_api_keys", { accountId }).value);
          throw e;
        }
      }
    },
  };
}

export type DashboardKeys = ReturnType<typeof createDashboardKeys>;
