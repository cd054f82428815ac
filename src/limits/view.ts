/** Builds the limits endpoint's body: the resolved catalogue grouped by category, the sound summary, usage. */
import { and, eq, isNull, ne, sql } from "drizzle-orm";
import { AUDIO_FORMATS } from "../bundles/audio-formats";
import type { Db } from "../db/database";
import { memberCount } from "../accounts/service";
import { apiKeys, extensions, secrets, versions } from "../db/schema";
import type { ExtensionService } from "../extensions/service";
import { LIMITS } from "./catalog";
import type { LimitsResponse } from "./model";
import type { LimitsService } from "./service";

export function createLimitsView(deps: { db: Db; limits: LimitsService; extensions: ExtensionService }) {
  const { db, limits } = deps;
  const count = (query: { get(): { n: number } | undefined }) => Number(query.get()?.n ?? 0);
  const n = sql<number>`COUNT(*)`;

  return {
    forExtension(accountId: string, extensionId: string): LimitsResponse {
      deps.extensions.findOwned(accountId, extensionId);
      const scope = { accountId, extensionId };
      const grouped: Record<string, Record<string, LimitsResponse["limits"]["account"][string]>> = {};
      const resolved = new Map<string, { value: number; source: LimitsResponse["sounds"]["source"] }>();
      for (const def of LIMITS) {
        const r = limits.resolve(def.key, scope);
        resolved.set(def.key, r);
        (grouped[def.category] ??= {})[def.key] = {
          value: r.value,
          source: r.source,
          default: def.default,
          hardMax: "hardMax" in def ? def.hardMax : null,
          unit: def.unit,
          description: def.description,
          overrideKey: def.key,
        };
      }
      const v = (key: string) => resolved.get(key)!.value;
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
          extensions: count(db.select({ n }).from(extensions).where(eq(extensions.accountId, accountId))),
          versions: count(db.select({ n }).from(versions).where(and(eq(versions.extensionId, extensionId), ne(versions.status, "archived")))),
          archivedVersions: count(db.select({ n }).from(versions).where(and(eq(versions.extensionId, extensionId), eq(versions.status, "archived")))),
          secrets: count(db.select({ n }).from(secrets).where(eq(secrets.extensionId, extensionId))),
          apiKeys: count(db.select({ n }).from(apiKeys).where(and(eq(apiKeys.accountId, accountId), isNull(apiKeys.revokedAt)))),
          // The owner included: the same count max_team_members is checked against.
          teamMembers: memberCount(db, accountId),
        },
      };
    },
  };
}

export type LimitsView = ReturnType<typeof createLimitsView>;
