/** Builds the limits endpoint's body: the resolved catalogue grouped by category, the sound summary, usage. */

import { and, eq, isNull, ne, type SQL, sql } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import { limitDefinition } from "../../../common/limits-catalog";
import { AUDIO_FORMATS } from "../../bundles/audio-formats";
import type { Db } from "../../db/database";
import type { DbGeneration } from "../../db/generation";
import { createReadCache } from "../../db/read-cache";
import { accounts, apiKeys, extensions, secrets, teamMembers, versions } from "../../db/schema";
import { membersWithOwner } from "../accounts/member-writer";
import type { ExtensionService } from "../extensions/service";
import type { LimitsResponse } from "./model";
import type { LimitsService } from "./service";

export function createLimitsView(deps: {
  db: Db;
  limits: LimitsService;
  extensions: ExtensionService;
  generation: DbGeneration;
}) {
  const { db, limits } = deps;
  const cache = createReadCache<LimitsResponse>(deps.generation);

  // The usage counts in one statement: each statement outside a transaction opens its own read transaction.
  // Each subquery names only its own table's columns (drizzle renders them unqualified in a one-table select).
  const accountId = sql.placeholder("accountId");
  const extensionId = sql.placeholder("extensionId");
  const countOf = (table: SQLiteTable, where: SQL) => sql<number>`(SELECT COUNT(*) FROM ${table} WHERE ${where})`;
  const usageStmt = db
    .select({
      extensions: countOf(extensions, eq(extensions.accountId, accountId)),
      versions: countOf(versions, and(eq(versions.extensionId, extensionId), ne(versions.status, "archived"))!),
      archived: countOf(versions, and(eq(versions.extensionId, extensionId), eq(versions.status, "archived"))!),
      secrets: countOf(secrets, eq(secrets.extensionId, extensionId)),
      keys: countOf(apiKeys, and(eq(apiKeys.accountId, accountId), isNull(apiKeys.revokedAt))!),
      members: countOf(teamMembers, eq(teamMembers.accountId, accountId)),
      owners: sql<number>`(SELECT COALESCE(SUM(${teamMembers.role} = 'owner'), 0) FROM ${teamMembers} WHERE ${eq(teamMembers.accountId, accountId)})`,
    })
    .from(accounts)
    .where(eq(accounts.id, accountId))
    .prepare();

  return {
    forExtension(accountId: string, extensionId: string): LimitsResponse {
      return cache.get(`${accountId}\0${extensionId}`, () => build(accountId, extensionId));
    },
  };

  function build(accountId: string, extensionId: string): LimitsResponse {
    // One read transaction for the whole body: a consistent picture, and one set of locks instead of one per statement.
    return db.read(() => {
      deps.extensions.findOwned(accountId, extensionId);
      const scope = { accountId, extensionId };
      const grouped: Record<string, Record<string, LimitsResponse["limits"]["account"][string]>> = {};
      const resolved = new Map<string, { value: number; source: LimitsResponse["sounds"]["source"] }>();
      for (const r of limits.resolveAll(scope)) {
        const def = limitDefinition(r.key);
        resolved.set(def.key, r);
        (grouped[def.category] ??= {})[def.key] = {
          value: r.value,
          source: r.source,
          default: def.default,
          hardMax: "hardMax" in def ? (def.hardMax ?? null) : null,
          unit: def.unit,
          description: def.description,
          overrideKey: def.key,
        };
      }
      const v = (key: string) => resolved.get(key)!.value;
      const usage = usageStmt.get({ accountId, extensionId })!;
      return {
        extensionId,
        sounds: {
          resolvedLimit: v("max_sounds_per_extension"),
          source: resolved.get("max_sounds_per_extension")!.source,
          maxInManifest: v("max_sounds_in_manifest"),
          fileBytes: v("sound_file_bytes"),
          warningBytes: v("sound_warning_bytes"),
          formats: [...AUDIO_FORMATS],
        },
        limits: grouped as LimitsResponse["limits"],
        usage: {
          extensions: usage.extensions,
          versions: usage.versions,
          archivedVersions: usage.archived,
          secrets: usage.secrets,
          apiKeys: usage.keys,
          // The owner included: the same count max_team_members is checked against.
          teamMembers: membersWithOwner(usage.members, usage.owners),
        },
      };
    });
  }
}

export type LimitsView = ReturnType<typeof createLimitsView>;
