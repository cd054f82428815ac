/**
 * Limit increase requests: a developer asks (scope account or extension, limits with desired values, a
 * reason of at least 20 characters), an admin approves — the overrides are written in the same
 * transaction, so the new values apply to the very next request — or rejects with a reason.
 * Only pending requests can be decided.
 */
import { and, asc, eq, type SQL, sql } from "drizzle-orm";
import { REASON_MIN, reasonLongEnough } from "../../../common/api-rules";
import { isLimitKey } from "../../../common/limits-catalog";
import type { Clock } from "../../base/clock";
import { newId } from "../../base/ids";
import type { Db, Tx } from "../../db/database";
import { accounts, extensions, limitRequests } from "../../db/schema";
import { errors } from "../../errors/catalog";
import { checkLimitValues, type OverrideService } from "../limits/overrides";
import type { LimitsService } from "../limits/service";
import type { CreateLimitRequestInput, LimitRequest, LimitRequestQuery } from "./model";

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

/** A request to insert: the API's new one (pending), or a fixture's or an export's as it was stored. */
export interface NewLimitRequest {
  /** Generated when absent. */
  id?: string;
  accountId: string;
  scope: Row["scope"];
  extensionId?: string | null;
  limits: Record<string, number>;
  reason: string;
  /** Default: pending. */
  status?: Row["status"];
  decisionReason?: string | null;
  createdAt: string;
  decidedAt?: string | null;
}

export function createLimitRequestService(deps: {
  db: Db;
  clock: Clock;
  overrides: OverrideService;
  limits: LimitsService;
}) {
  const { db, clock, overrides, limits } = deps;
  const extensionOwnerStmt = db
    .select({ accountId: extensions.accountId })
    .from(extensions)
    .where(eq(extensions.id, sql.placeholder("id")))
    .prepare();
  const byIdStmt = db
    .select({ accountId: limitRequests.accountId })
    .from(limitRequests)
    .where(eq(limitRequests.id, sql.placeholder("id")))
    .prepare();
  const insertStmt = db
    .insert(limitRequests)
    .values({
      id: sql.placeholder("id"),
      accountId: sql.placeholder("accountId"),
      scope: sql.placeholder("scope"),
      extensionId: sql.placeholder("extensionId"),
      limits: sql.placeholder("limits"),
      reason: sql.placeholder("reason"),
      status: sql.placeholder("status"),
      decisionReason: sql.placeholder("decisionReason"),
      createdAt: sql.placeholder("createdAt"),
      decidedAt: sql.placeholder("decidedAt"),
    })
    .prepare();

  /** The extension a request names is the account's: another account's is reported like a missing one. */
  function checkTarget(accountId: string, extensionId: string | null | undefined): void {
    if (extensionId && extensionOwnerStmt.get({ id: extensionId })?.accountId !== accountId)
      throw errors.extensionNotFound(extensionId);
  }

  /**
   * The one writer of limit_requests: a new request and a fixture's or an export's, inside the caller's
   * transaction, held to the request's own rules (checkLimitRequest) and to its target (checkTarget).
   */
  function insertLimitRequest(input: NewLimitRequest): Row {
    const reason = checkLimitRequest({ ...input, extensionId: input.extensionId ?? undefined });
    checkTarget(input.accountId, input.extensionId);
    if (input.id !== undefined && byIdStmt.get({ id: input.id }))
      throw errors.idTaken(input.id, "another limit request");
    const row: Row = {
      id: input.id ?? newId("req", clock.nowMs()),
      accountId: input.accountId,
      scope: input.scope,
      extensionId: input.extensionId ?? null,
      limits: JSON.stringify(input.limits),
      reason,
      status: input.status ?? "pending",
      decisionReason: input.decisionReason ?? null,
      createdAt: input.createdAt,
      decidedAt: input.decidedAt ?? null,
    };
    // A decided request has the instant of its decision: now, where a fixture gives none.
    if (row.status !== "pending" && row.decidedAt === null) row.decidedAt = clock.iso();
    insertStmt.run(row);
    return row;
  }

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
    insertLimitRequest,
    checkTarget,
    /** The account of the limit request with this id, if any. */
    accountOf: (id: string): string | undefined => byIdStmt.get({ id })?.accountId,

    create(input: CreateLimitRequestInput): LimitRequest {
      // The request's own rules first (a 422 before a 404), as the writer checks them again.
      checkLimitRequest(input);
      return db.write((tx) => {
        if (!tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, input.accountId)).get())
          throw errors.accountNotFound(input.accountId);
        checkTarget(input.accountId, input.extensionId);
        // An increase request raises: a value at or below the one in force now is refused, every such limit named.
        const scope = { accountId: input.accountId, extensionId: input.extensionId ?? null };
        const notAbove = Object.entries(input.limits).flatMap(([key, wanted]) => {
          if (!isLimitKey(key)) return [];
          const current = limits.resolve(key, scope).value;
          return wanted > current ? [] : [{ key, wanted, current }];
        });
        if (notAbove.length > 0) throw errors.limitRequestNotIncrease(notAbove);
        return toView(insertLimitRequest({ ...input, createdAt: clock.iso() }));
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
        if (row.scope === "extension") overrides.setOverrides("extension", row.extensionId!, limits);
        else overrides.setOverrides("account", row.accountId, limits);
        const decided = { status: "approved" as const, decisionReason: reason?.trim() || null, decidedAt: clock.iso() };
        tx.update(limitRequests).set(decided).where(eq(limitRequests.id, id)).run();
        return toView({ ...row, ...decided });
      });
    },

    reject(id: string, reason: string): LimitRequest {
      return db.write((tx) => {
        const row = pending(tx, id);
        const decided = { status: "rejected" as const, decisionReason: reason.trim(), decidedAt: clock.iso() };
        tx.update(limitRequests).set(decided).where(eq(limitRequests.id, id)).run();
        return toView({ ...row, ...decided });
      });
    },
  };
}

export type LimitRequestService = ReturnType<typeof createLimitRequestService>;
