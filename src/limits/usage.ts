/**
 * The developer limits page: every limit of one scope (an account, or one of its extensions) with its
 * resolved value, source, default, hard maximum and — where the emulator counts it — current usage, the
 * very counts the caps are checked against.
 */
import { memberCount } from "../accounts/service";
import type { Db } from "../db/database";
import { errors } from "../errors/catalog";
import { LIMITS } from "./catalog";
import type { LimitsService } from "./service";
import type { LimitUsage } from "./usage-model";

export function createLimitUsage(deps: { db: Db; limits: LimitsService }) {
  const { db, limits } = deps;
  const one = (sql: string, param: string) =>
    Number(db.$client.prepare<{ n: number }, [string]>(sql).get(param)?.n ?? 0);

  return {
    forScope(accountId: string, extensionId: string | null): LimitUsage {
      if (one("SELECT COUNT(*) AS n FROM accounts WHERE id = ?", accountId) === 0)
        throw errors.accountNotFound(accountId);
      let sounds: number | null = null;
      if (extensionId) {
        const ext = db.$client
          .prepare<{ current: string | null }, [string, string]>(
            "SELECT current_version_id AS current FROM extensions WHERE id = ? AND account_id = ?",
          )
          .get(extensionId, accountId);
        if (!ext) throw errors.extensionNotFound(extensionId);
        sounds = ext.current ? one("SELECT sound_count AS n FROM versions WHERE id = ?", ext.current) : 0;
      }
      const usage: Record<string, number | null> = {
        max_extensions_per_account: one("SELECT COUNT(*) AS n FROM extensions WHERE account_id = ?", accountId),
        max_api_keys: one("SELECT COUNT(*) AS n FROM api_keys WHERE account_id = ? AND revoked_at IS NULL", accountId),
        max_team_members: memberCount(db, accountId),
        max_versions_per_extension: extensionId
          ? one("SELECT COUNT(*) AS n FROM versions WHERE extension_id = ? AND status <> 'archived'", extensionId)
          : null,
        max_secrets_per_extension: extensionId
          ? one("SELECT COUNT(*) AS n FROM secrets WHERE extension_id = ?", extensionId)
          : null,
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
      };
    },
  };
}
