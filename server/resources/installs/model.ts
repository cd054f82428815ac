/** Install statistics: aggregates only, never per-user data. Shared by the route, the OpenAPI document and tests. */
import type { Static } from "elysia";
import { integer, named, t } from "../../schema/schema";

/** Most installs one extension can ever record: keeps every sum far inside JavaScript's exact integers. */
export const MAX_INSTALLS_PER_EXTENSION = 1_000_000_000_000;

export const InstallStats = t.Object(
  {
    total: integer({
      minimum: 0,
      description: "Every install ever recorded, uninstalled ones included (= installCount)",
    }),
    active: integer({ minimum: 0, description: "Installs not uninstalled" }),
    byVersion: t.Record(t.String(), integer({ minimum: 1 }), {
      description: "Active installs per version id; sums to active; versions without active installs are left out",
      examples: [{ ver_01jd2x7k3m9q8r4t5v6w7x8y9z: 3 }],
    }),
  },
  { additionalProperties: false, ...named("InstallStatistics") },
);
export type InstallStats = Static<typeof InstallStats>;

export interface InstallOptions {
  /** Defaults to the extension's current (approved) version. */
  versionId?: string;
  /** 1..MAX_INSTALLS_PER_CALL, default 1. */
  count?: number;
}

export interface RolloutOptions {
  /** Where the installs come from; default every other version, those installed first going first. */
  fromVersionId?: string;
  /** Where they go; default the extension's current (approved) version. */
  toVersionId?: string;
  /** 1..MAX_INSTALLS_PER_CALL; default every active install of the source. */
  count?: number;
}
