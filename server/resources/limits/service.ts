/**
 * Resolves limits in the spec's priority: (1) per-extension override, (2) per-developer (account) override,
 * (3) platform default. A stored override can never lift a value past its hard maximum: writes refuse it
 * and resolution clamps defensively.
 */
import { and, eq, sql } from "drizzle-orm";
import { LIMITS, type LimitKey, limitCeiling, limitDefinition } from "../../../common/limits-catalog";
import { onFirstUse } from "../../base/on-first-use";
import type { Db } from "../../db/database";
import { accountOverrides, extensionOverrides } from "../../db/schema";

export type LimitSource = "extension_override" | "developer_override" | "platform_default";

export interface ResolvedLimit {
  key: LimitKey;
  value: number;
  source: LimitSource;
}

export interface LimitsService {
  resolve(key: LimitKey, scope: { accountId: string; extensionId?: string | null }): ResolvedLimit;
  resolveAll(scope: { accountId: string; extensionId?: string | null }): ResolvedLimit[];
}

export function createLimitsService(db: Db): LimitsService {
  const extStmt = onFirstUse(() =>
    db
      .select({ value: extensionOverrides.value })
      .from(extensionOverrides)
      .where(
        and(
          eq(extensionOverrides.extensionId, sql.placeholder("extensionId")),
          eq(extensionOverrides.limitKey, sql.placeholder("key")),
        ),
      )
      .prepare(),
  );
  const accStmt = onFirstUse(() =>
    db
      .select({ value: accountOverrides.value })
      .from(accountOverrides)
      .where(
        and(
          eq(accountOverrides.accountId, sql.placeholder("accountId")),
          eq(accountOverrides.limitKey, sql.placeholder("key")),
        ),
      )
      .prepare(),
  );
  const clamp = (key: LimitKey, value: number) => Math.min(value, limitCeiling(key));
  const resolve: LimitsService["resolve"] = (key, { accountId, extensionId }) => {
    if (extensionId) {
      const row = extStmt().get({ extensionId, key });
      if (row) return { key, value: clamp(key, row.value), source: "extension_override" };
    }
    const row = accStmt().get({ accountId, key });
    if (row) return { key, value: clamp(key, row.value), source: "developer_override" };
    return { key, value: limitDefinition(key).default, source: "platform_default" };
  };
  // Every override of the scope in two statements (the limits endpoint resolves the whole catalogue per request).
  const extAllStmt = onFirstUse(() =>
    db
      .select({ key: extensionOverrides.limitKey, value: extensionOverrides.value })
      .from(extensionOverrides)
      .where(eq(extensionOverrides.extensionId, sql.placeholder("extensionId")))
      .prepare(),
  );
  const accAllStmt = onFirstUse(() =>
    db
      .select({ key: accountOverrides.limitKey, value: accountOverrides.value })
      .from(accountOverrides)
      .where(eq(accountOverrides.accountId, sql.placeholder("accountId")))
      .prepare(),
  );
  const resolveAll: LimitsService["resolveAll"] = ({ accountId, extensionId }) => {
    const ext = new Map(
      extensionId
        ? extAllStmt()
            .all({ extensionId })
            .map((r) => [r.key, r.value])
        : [],
    );
    const acc = new Map(
      accAllStmt()
        .all({ accountId })
        .map((r) => [r.key, r.value]),
    );
    return LIMITS.map(({ key }): ResolvedLimit => {
      const e = ext.get(key);
      if (e !== undefined) return { key, value: clamp(key, e), source: "extension_override" };
      const a = acc.get(key);
      if (a !== undefined) return { key, value: clamp(key, a), source: "developer_override" };
      return { key, value: limitDefinition(key).default, source: "platform_default" };
    });
  };
  return { resolve, resolveAll };
}
