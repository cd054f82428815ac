/**
 * Limit increase requests: a developer asks (scope account or extension, limits with desired values, a
 * reason of at least 20 characters), an admin approves — the overrides are written in the same
 * transaction, so the new values apply to the very next request — or rejects with a reason.
 * Only pending requests can be decided.
 */
import { and, asc, eq, type SQL } from "drizzle-orm";
import type { Clock } from "../clock";
import type { Db, Tx } from "../db/database";
import { accounts, extensions, limitRequests } from "../db/schema";
import { errors } from "../errors/catalog";
import { newId } from "../ids";
import { isLimitKey } from "../limits/catalog";
import { checkLimitValues, type OverrideService } from "../limits/overrides";
import type { LimitsService } from "../limits/service";
import {
  type CreateLimitRequestInput,
  type LimitRequest,
  type LimitRequestQuery,
  REASON_MIN,
  reasonLongEnough,
} from "./model";

type Row = typeof limitRequests.$inferSelect;

function toView(row: Row): LimitRequest {
  return {
    id: row.id,
    accountId: row.accountId,
    scope: row.scope as LimitRequest["scope"],
    extensionId: row.extensionId,
    limits: JSON.parse(row.limits) as Record<string, number>,
    reason: row.reason,
    status: row.status as LimitRequest["status"],
    decisionReason: row.decisionReason,
    createdAt: row.createdAt,
    decidedAt: row.decidedAt,
  };
}

/**
 * A request's own rules (reason, limits, scope), as the API checks a new one; a fixture's requests run it too.
 * Gives the reason as stored (trimmed).
 */
export function checkLimitRequest(input: {
  scope: string;
  extensionId?: string;
  limits: Record<string, number>;
  reason: string;
}): string {
  if (!reasonLongEnough(input.reason)) throw errors.reasonTooShort(REASON_MIN);
  const reason = input.reason.trim();
  if (Object.keys(input.limits).length === 0)
    throw errors.limitRequestTarget("limits", "name at least one limit and its desired value");
  const problems = checkLimitValues(input.limits, "limits");
  if (problems.length > 0) throw errors.limitValuesInvalid(problems);
  if (input.scope === "extension" && !input.extensionId)
    throw errors.limitRequestTarget("extensionId", "required when scope is extension");
  if (input.scope === "account" && input.extensionId)
    throw errors.limitRequestTarget("extensionId", "only allowed when scope is extension");
  return reason;
}

export function createLimitRequestService(deps: {
  db: Db;
  clock: Clock;
  overrides: OverrideService;
  limits: LimitsService;
}) {
  const { db, clock, overrides, limits } = deps;

  function find(tx: Pick<Db, "select">, id: string): Row {
    const row = tx.select().from(limitRequests).where(eq(limitRequests.id, id)).get();
    if (!row) throw errors.limitRequestNotFound(id);
    return row;
  }

  /** Loads a pending request inside a transaction, or refuses (404 / 409). */
  function pending(tx: Tx, id: string): Row {
    const row = find(tx, id);
    if (row.status !== "pending") throw errors.limitRequestDecided(id, row.status);
    return row;
  }

  return {
    create(input: CreateLimitRequestInput): LimitRequest {
      const reason = checkLimitRequest(input);
      return db.write((tx) => {
        if (!tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, input.accountId)).get())
          throw errors.accountNotFound(input.accountId);
        if (input.extensionId) {
          const ext = tx
            .select({ accountId: extensions.accountId })
            .from(extensions)
            .where(eq(extensions.id, input.extensionId))
            .get();
          // Another account's extension is reported like a missing one.
          if (!ext || ext.accountId !== input.accountId) throw errors.extensionNotFound(input.extensionId);
        }
        // An increase request raises: a value at or below the one in force now is refused, every such limit named.
        const scope = { accountId: input.accountId, extensionId: input.extensionId ?? null };
        const notAbove = Object.entries(input.limits).flatMap(([key, wanted]) => {
          if (!isLimitKey(key)) return [];
          const current = limits.resolve(key, scope).value;
          return wanted > current ? [] : [{ key, wanted, current }];
        });
        if (notAbove.length > 0) throw errors.limitRequestNotIncrease(notAbove);
        const row: Row = {
          id: newId("req", clock.nowMs()),
          accountId: input.accountId,
          scope: input.scope,
          extensionId: input.extensionId ?? null,
          limits: JSON.stringify(input.limits),
          reason,
          status: "pending",
          decisionReason: null,
          createdAt: clock.iso(),
          decidedAt: null,
        };
        tx.insert(limitRequests).values(row).run();
        return toView(row);
      });
    },

    get(id: string): LimitRequest {
      return toView(find(db, id));
    },

    /** Oldest first, optionally narrowed to one account and/or one status. */
    list(query: LimitRequestQuery): LimitRequest[] {
      const conditions: SQL[] = [];
      if (query.accountId) conditions.push(eq(limitRequests.accountId, query.accountId));
      if (query.status) conditions.push(eq(limitRequests.status, query.status));
      return db
        .select()
        .from(limitRequests)
        .where(conditions.length > 0 ? and(...conditions) : undefined)
        .orderBy(asc(limitRequests.createdAt), asc(limitRequests.id))
        .all()
        .map(toView);
    },

    approve(id: string, reason?: string): LimitRequest {
      return db.write((tx) => {
        const row = pending(tx, id);
        const limits = JSON.parse(row.limits) as Record<string, number>;
        if (row.scope === "extension") overrides.upsert(tx, "extension", row.extensionId!, limits);
        else overrides.upsert(tx, "account", row.accountId, limits);
        const decided = { status: "approved", decisionReason: reason?.trim() || null, decidedAt: clock.iso() };
        tx.update(limitRequests).set(decided).where(eq(limitRequests.id, id)).run();
        return toView({ ...row, ...decided });
      });
    },

    reject(id: string, reason: string): LimitRequest {
      return db.write((tx) => {
        const row = pending(tx, id);
        const decided = { status: "rejected", decisionReason: reason.trim(), decidedAt: clock.iso() };
        tx.update(limitRequests).set(decided).where(eq(limitRequests.id, id)).run();
        return toView({ ...row, ...decided });
      });
    },
  };
}

export type LimitRequestService = ReturnType<typeof createLimitRequestService>;
