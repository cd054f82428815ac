/**
 * The developer limits page: every limit of one scope (an account, or one of its extensions) with its
 * resolved value, source, default, hard maximum and — where the emulator counts it — current usage, the
 * very counts the caps are checked against.
 */

import { and, count, eq, isNull, ne, type SQL } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import { LIMITS } from "../../../common/limits-catalog";
import type { Db } from "../../db/database";
import { accounts, apiKeys, extensions, secrets, versions } from "../../db/schema";
import { errors } from "../../errors/catalog";
import { RATE_GROUPS } from "../../ratelimit/limiter";
import { memberCount } from "../accounts/member-writer";
import type { LimitsService } from "./service";
import type { LimitUsage } from "./usage-model";

export function createLimitUsage(deps: { db: Db; limits: LimitsService }) {
  const { db, limits } = deps;
  const rows = (table: SQLiteTable, where: SQL | undefined) =>
    db.select({ n: count() }).from(table).where(where).get()?.n ?? 0;

  return {
    forScope(accountId: string, extensionId: string | null): LimitUsage {
      if (rows(accounts, eq(accounts.id, accountId)) === 0) throw errors.accountNotFound(accountId);
      let sounds: number | null = null;
      if (extensionId) {
        const ext = db
          .select({ current: extensions.currentVersionId })
          .from(extensions)
          .where(and(eq(extensions.id, extensionId), eq(extensions.accountId, accountId)))
          .get();
        if (!ext) throw errors.extensionNotFound(extensionId);
        sounds = ext.current
          ? (db.select({ n: versions.soundCount }).from(versions).where(eq(versions.id, ext.current)).get()?.n ?? 0)
          : 0;
      }
      const usage: Record<string, number | null> = {
        max_extensions_per_account: rows(extensions, eq(extensions.accountId, accountId)),
        max_api_keys: rows(apiKeys, and(eq(apiKeys.accountId, accountId), isNull(apiKeys.revokedAt))),
        max_team_members: memberCount(db, accountId),
        max_versions_per_extension: extensionId
          ? rows(versions, and(eq(versions.extensionId, extensionId), ne(versions.status, "archived")))
          : null,
        max_secrets_per_extension: extensionId ? rows(secrets, eq(secrets.extensionId, extensionId)) : null,
        max_sounds_per_extension: sounds,
      };
      return {
        accountId,
        extensionId,
        limits: LIMITS.map((def) => {
          const r = limits.resolve(def.key, { accountId, extensionId });
          return {
            key: def.key,
            category: def.category,
            description: def.description,
            unit: def.unit,
            value: r.value,
            source: r.source,
            default: def.default,
            hardMax: "hardMax" in def ? def.hardMax : null,
            usage: usage[def.key] ?? null,
          };
        }),
        rateLimits: Object.entries(RATE_GROUPS).map(([group, g]) => ({
          group,
          label: g.label,
          limit: g.limit,
          periodSeconds: g.periodMs / 1000,
        })),
      };
    },
  };
}
