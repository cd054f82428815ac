/**
 * The key the dashboard uses when it acts as an account on the developer API (listing, patching and
 * deleting extensions, secrets, installs): an ordinary API key named "dashboard" with scope `*`, created
 * through the same `createKey` as any other (so it counts against `max_api_keys` and shows in the key
 * list), its plaintext held in this process's memory only — never written to disk — so that the next
 * page load reuses it instead of creating another. Revoked, or wiped by a reset, it is made again.
 */
import { and, eq, isNull } from "drizzle-orm";
import type { Db } from "../db/database";
import { apiKeys } from "../db/schema";
import { ApiError } from "../errors/api-error";
import { errors } from "../errors/catalog";
import type { LimitsService } from "../limits/service";
import type { ApiKey } from "./model";
import type { AccountService } from "./service";

export const DASHBOARD_KEY_NAME = "dashboard";

export function createDashboardKeys(deps: { db: Db; accounts: AccountService; limits: LimitsService }) {
  const held = new Map<string, { keyId: string; plaintext: string }>();
  const stillActive = (accountId: string, keyId: string) =>
    deps.db
      .select({ id: apiKeys.id })
      .from(apiKeys)
      .where(and(eq(apiKeys.id, keyId), eq(apiKeys.accountId, accountId), isNull(apiKeys.revokedAt)))
      .get() !== undefined;

  return {
    /** The account's dashboard key, created when it has none that still works. */
    forAccount(accountId: string): { apiKey: ApiKey; plaintext: string; created: boolean } {
      const current = held.get(accountId);
      if (current && stillActive(accountId, current.keyId)) {
        const apiKey = deps.accounts.listKeys(accountId).find((k) => k.id === current.keyId)!;
        return { apiKey, plaintext: current.plaintext, created: false };
      }
      try {
        const made = deps.accounts.createKey(accountId, { name: DASHBOARD_KEY_NAME, scopes: ["*"] });
        held.set(accountId, { keyId: made.apiKey.id, plaintext: made.plaintext });
        return { ...made, created: true };
      } catch (e) {
        if (e instanceof ApiError && e.code === "limit_exceeded")
          throw errors.dashboardKeyUnavailable(accountId, deps.limits.resolve("max_api_keys", { accountId }).value);
        throw e;
      }
    },
    clear(): void {
      held.clear();
    },
  };
}

export type DashboardKeys = ReturnType<typeof createDashboardKeys>;
