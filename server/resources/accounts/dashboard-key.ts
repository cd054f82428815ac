/**
 * The key the dashboard uses when it acts as an account on the developer API (listing, patching and
 * deleting extensions, secrets, installs): an ordinary API key named "dashboard" with scope `*`, created
 * through the same `createKey` as any other (so it counts against `max_api_keys` and shows in the key
 * list). Its plaintext is derived from the data directory's secrets key, the account (its id and when it was
 * created), the reset epoch (dashboard-key-epoch.ts) and a sequence number, and never written anywhere.
 * A revoked one is followed by the next of the sequence; a reset starts a new epoch, so no earlier key, revoked
 * or not, is made again once the rows that recorded it are wiped.
 * A dashboard key lives as long as the server that made it: every start revokes the ones the previous run left
 * working (`revokeEarlierRun`) and moves the epoch, so a key a stale tab sends to whoever took a stopped
 * server's port is dead once the owner starts again; revoked keys do not count against the cap. Nor does one leave
 * its run through an export: the export writes it revoked (`workingKeyIds`), as the next start would leave it.
 */
import { and, eq, isNull } from "drizzle-orm";
import type { KeyHasher } from "../../auth/keys";
import type { Db } from "../../db/database";
import { accounts as accountRows, apiKeys } from "../../db/schema";
import { ApiError } from "../../errors/api-error";
import { errors } from "../../errors/catalog";
import type { LimitsService } from "../limits/service";
import type { KeyEpoch } from "./dashboard-key-epoch";
import type { ApiKey } from "./model";
import type { AccountService } from "./service";

export const DASHBOARD_KEY_NAME = "dashboard";

/**
 * The active keys named like a dashboard key: one query on an index of active keys by name, all a start costs
 * when there are none. A user may name a key of their own so: `revokeEarlierRun` tells them apart.
 */
export function activeDashboardKeyRows(db: Db): { id: string; accountId: string }[] {
  return db
    .select({ id: apiKeys.id, accountId: apiKeys.accountId })
    .from(apiKeys)
    .where(and(eq(apiKeys.name, DASHBOARD_KEY_NAME), isNull(apiKeys.revokedAt)))
    .all();
}

/** A snapshot's note of the dashboard keys working when it was taken, and of their epoch. */
export interface DashboardKeyPin {
  epoch: number;
  ids: string[];
}

export function createDashboardKeys(deps: {
  db: Db;
  accounts: AccountService;
  limits: LimitsService;
  keyHasher: KeyHasher;
  epoch: KeyEpoch;
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

  /**
   * Past every key of the sequence that exists but cannot be used (revoked, or another account's): as many
   * steps as the account has revoked dashboard keys in this epoch.
   */
  function walk(accountId: string) {
    const createdAt = createdAtOf(accountId);
    if (createdAt === undefined) throw errors.accountNotFound(accountId);
    const epoch = deps.epoch.current();
    for (let n = 0; ; n++) {
      const plaintext = deps.keyHasher.derive(`dashboard key\n${accountId}\n${createdAt}\n${epoch}\n${n}`);
      const row = rowOf(deps.keyHasher.hash(plaintext));
      if (row && (row.accountId !== accountId || row.revokedAt !== null)) continue;
      return { plaintext, row };
    }
  }

  /** Each account's working derived key among `rows`: the one walk stops at, if `rows` holds it. */
  function workingOf(rows: readonly { id: string; accountId: string }[]): { id: string; accountId: string }[] {
    const working: { id: string; accountId: string }[] = [];
    for (const accountId of new Set(rows.map((r) => r.accountId))) {
      const { row } = walk(accountId);
      if (row && rows.some((r) => r.id === row.id)) working.push({ id: row.id, accountId });
    }
    return working;
  }

  return {
    /** The account's dashboard key, created when it has none that still works. */
    forAccount(accountId: string): { apiKey: ApiKey; plaintext: string; created: boolean } {
      const { plaintext, row } = walk(accountId);
      if (row) {
        const apiKey = deps.accounts.listKeys(accountId).find((k) => k.id === row.id)!;
        return { apiKey, plaintext, created: false };
      }
      try {
        const made = deps.accounts.createKey(accountId, { name: DASHBOARD_KEY_NAME, scopes: ["*"] }, plaintext);
        return { ...made, created: true };
      } catch (e) {
        if (e instanceof ApiError && e.code === "limit_exceeded")
          throw errors.dashboardKeyUnavailable(accountId, deps.limits.resolve("max_api_keys", { accountId }).value);
        throw e;
      }
    },
    /**
     * At start, before the server listens: revokes each of `rows` (activeDashboardKeyRows) that is its account's
     * derived dashboard key, through the accounts service's own revoke; a key a user named "dashboard" is left
     * alone. When one was, the epoch moves, so `forAccount` starts a fresh sequence instead of walking past the
     * revoked keys of every earlier run. Revoked first, the epoch moved after: a start cut in between leaves
     * nothing working that the next start cannot find. Returns how many were revoked.
     */
    revokeEarlierRun(rows: readonly { id: string; accountId: string }[]): number {
      const working = workingOf(rows);
      for (const row of working) deps.accounts.revokeKey(row.accountId, row.id);
      if (working.length > 0) deps.epoch.next();
      return working.length;
    },
    /**
     * The ids among `rows` (activeDashboardKeyRows) that are a working dashboard key, told apart from a user's key
     * named "dashboard" as `revokeEarlierRun` does: what an export writes revoked (server/exports/document.ts).
     */
    workingKeyIds(rows: readonly { id: string; accountId: string }[]): Set<string> {
      return new Set(workingOf(rows).map((r) => r.id));
    },
    /** What a snapshot keeps beside its rows (server/resources/snapshots/store.ts): the epoch and the working keys. */
    pin(): DashboardKeyPin {
      return { epoch: deps.epoch.current(), ids: workingOf(activeDashboardKeyRows(deps.db)).map((r) => r.id) };
    },
    /**
     * After a snapshot's rows are back: when a reset moved the epoch since it was taken, its working keys are no
     * longer derived for this epoch, so no start could recognise them; they are revoked now instead.
     */
    afterRestore(pin: DashboardKeyPin): void {
      if (pin.epoch === deps.epoch.current()) return;
      const back = new Set(activeDashboardKeyRows(deps.db).map((r) => r.id));
      for (const id of pin.ids) {
        const row = deps.db.select({ accountId: apiKeys.accountId }).from(apiKeys).where(eq(apiKeys.id, id)).get();
        if (row && back.has(id)) deps.accounts.revokeKey(row.accountId, id);
      }
    },
    /** Before every row is wiped (a reset): no key made before is made again. */
    beforeWipe(): void {
      deps.epoch.next();
    },
  };
}
