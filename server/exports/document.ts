/**
 * The whole state of an emulator as a fixture document (format 2): every row with its id, timestamps,
 * status and hash, so loading it recreates each developer-API read exactly, plus the bundle files it names.
 * Secret values stay sealed unless asked for; API keys are written as hashes, except those a fixture gave
 * in plaintext; a working dashboard key is written revoked (it belongs to the run that made it). Read in one read transaction (one typed select per table, grouped by parent), so the document
 * is one consistent picture; each table's columns map to the fixture's fields in one place below, and the
 * document is typed as the fixture the loader reads (server/seed/model.ts), so the two cannot drift apart.
 */
import { asc } from "drizzle-orm";
import {
  accountOverrides,
  accounts,
  apiKeys,
  extensionOverrides,
  extensions,
  installCounters,
  limitRequests,
  secrets,
  teamMembers,
  versions,
} from "../db/schema";
import { activeDashboardKeyRows } from "../resources/accounts/dashboard-key";
import type { Runtime } from "../runtime/runtime";
import { bundleFileName } from "../seed/bundle-files";
import { FIXTURE_FORMAT_VERSION, type Fixture, type FixtureExtension } from "../seed/model";

/** The media type of an export archive (server/exports/archive.ts), here so its users need not load that module. */
export const EXPORT_MEDIA_TYPE = "application/x-tar";

export interface ExportOptions {
  /** Secret values in plain text: only when asked for explicitly. */
  includeSecretValues?: boolean;
}

export interface ExportedState {
  document: Fixture;
  /** sha256 → blob id of one version holding those bytes. */
  bundles: Map<string, string>;
}

type FixtureAccount = Fixture["accounts"][number];

/** Optional fields are left out rather than written as null, as a hand-written fixture would. */
const opt = <K extends string, V>(key: K, value: V | null) =>
  (value === null ? {} : { [key]: value }) as Partial<Record<K, V>>;

/** Rows grouped by a parent id, each group in the order the rows came. */
function groupBy<R>(rows: R[], key: (row: R) => string): Map<string, R[]> {
  const groups = new Map<string, R[]>();
  for (const row of rows) {
    const group = groups.get(key(row));
    if (group) group.push(row);
    else groups.set(key(row), [row]);
  }
  return groups;
}

const limitValues = (rows: { limitKey: string; value: number }[] | undefined) =>
  Object.fromEntries((rows ?? []).map((r) => [r.limitKey, r.value]));

export function exportState(runtime: Runtime, options: ExportOptions = {}): ExportedState {
  const { db } = runtime;
  const bundles = new Map<string, string>();
  const clock = runtime.clock.state();
  const read = (): FixtureAccount[] => {
    // A dashboard key works for the run that made it only: written revoked, loading the export never revives it.
    const dashboardKeyIds = runtime.services.dashboardKeys.workingKeyIds(activeDashboardKeyRows(db));
    const keysOf = groupBy(
      db.select().from(apiKeys).orderBy(asc(apiKeys.createdAt), asc(apiKeys.id)).all(),
      (r) => r.accountId,
    );
    const membersOf = groupBy(
      db.select().from(teamMembers).orderBy(asc(teamMembers.createdAt), asc(teamMembers.id)).all(),
      (r) => r.accountId,
    );
    const accountOverridesOf = groupBy(
      db.select().from(accountOverrides).orderBy(asc(accountOverrides.limitKey)).all(),
      (r) => r.accountId,
    );
    const extensionsOf = groupBy(
      db.select().from(extensions).orderBy(asc(extensions.createdAt), asc(extensions.id)).all(),
      (r) => r.accountId,
    );
    const extensionOverridesOf = groupBy(
      db.select().from(extensionOverrides).orderBy(asc(extensionOverrides.limitKey)).all(),
      (r) => r.extensionId,
    );
    const versionsOf = groupBy(db.select().from(versions).orderBy(asc(versions.seq)).all(), (r) => r.extensionId);
    const countersOf = groupBy(
      db
        .select()
        .from(installCounters)
        .orderBy(asc(installCounters.firstInstalledAt), asc(installCounters.versionId))
        .all(),
      (r) => r.extensionId,
    );
    const secretsOf = groupBy(db.select().from(secrets).orderBy(asc(secrets.name)).all(), (r) => r.extensionId);
    const requestsOf = groupBy(
      db.select().from(limitRequests).orderBy(asc(limitRequests.createdAt), asc(limitRequests.id)).all(),
      (r) => r.accountId,
    );

    const extension = (x: typeof extensions.$inferSelect): FixtureExtension => {
      const rows = versionsOf.get(x.id) ?? [];
      const labels = new Map(rows.map((v) => [v.id, v.version]));
      return {
        id: x.id,
        slug: x.slug,
        name: x.name,
        short_description: x.shortDescription,
        description: x.description,
        pricing: JSON.parse(x.pricing),
        visibility: x.visibility,
        status: x.status,
        ...opt("currentVersionId", x.currentVersionId),
        ratingCount: x.ratingCount,
        ...opt("listedAt", x.listedAt),
        createdAt: x.createdAt,
        updatedAt: x.updatedAt,
        overrides: limitValues(extensionOverridesOf.get(x.id)),
        versions: rows.map((v) => {
          if (!bundles.has(v.bundleSha256)) bundles.set(v.bundleSha256, v.bundleBlobId);
          return {
            id: v.id,
            version: v.version,
            changelog: v.changelog,
            status: v.status,
            bundle: { sha256: v.bundleSha256, sizeBytes: v.bundleSizeBytes, file: bundleFileName(v.bundleSha256) },
            soundCount: v.soundCount,
            warnings: JSON.parse(v.warnings),
            ...opt("rejectReason", v.rejectReason),
            submittedAt: v.submittedAt,
            ...opt("approvedAt", v.approvedAt),
            ...opt("rejectedAt", v.rejectedAt),
            ...opt("archivedAt", v.archivedAt),
          };
        }),
        installCounters: (countersOf.get(x.id) ?? []).map((c) => ({
          version: labels.get(c.versionId)!,
          installed: c.installed,
          active: c.active,
          firstInstalledAt: c.firstInstalledAt,
        })),
        secrets: (secretsOf.get(x.id) ?? []).map((s) => {
          const value = options.includeSecretValues ? runtime.cipher.open(x.id, s.name, s) : "";
          // An empty value (a secret loaded from an export without values) is written as no value.
          return { name: s.name, ...(value !== "" ? { value } : {}), createdAt: s.createdAt, updatedAt: s.updatedAt };
        }),
      };
    };

    return db
      .select()
      .from(accounts)
      .orderBy(asc(accounts.createdAt), asc(accounts.id))
      .all()
      .map((acc) => ({
        id: acc.id,
        name: acc.name,
        createdAt: acc.createdAt,
        apiKeys: (keysOf.get(acc.id) ?? []).map((k) => {
          const plaintext = runtime.fixturePlaintexts.get(k.keyHash);
          return {
            id: k.id,
            name: k.name,
            ...(plaintext !== undefined ? { key: plaintext } : { keyHash: k.keyHash }),
            keyPrefix: k.keyPrefix,
            scopes: JSON.parse(k.scopes),
            createdAt: k.createdAt,
            ...opt("revokedAt", dashboardKeyIds.has(k.id) ? clock.now : k.revokedAt),
          };
        }),
        overrides: limitValues(accountOverridesOf.get(acc.id)),
        teamMembers: (membersOf.get(acc.id) ?? []).map((m) => ({
          id: m.id,
          email: m.email,
          role: m.role,
          createdAt: m.createdAt,
        })),
        extensions: (extensionsOf.get(acc.id) ?? []).map(extension),
        limitRequests: (requestsOf.get(acc.id) ?? []).map((r) => ({
          id: r.id,
          scope: r.scope,
          ...opt("extensionId", r.extensionId),
          limits: JSON.parse(r.limits),
          reason: r.reason,
          status: r.status,
          ...opt("decisionReason", r.decisionReason),
          createdAt: r.createdAt,
          ...opt("decidedAt", r.decidedAt),
        })),
      }));
  };
  const accountsRead = db.read(read);
  const document: Fixture = {
    formatVersion: FIXTURE_FORMAT_VERSION,
    exportedAt: clock.now,
    clock: { now: clock.now, mode: clock.mode },
    accounts: accountsRead,
    // The profile this emulator answers with: an emulator started from the export answers the same way.
    ...(runtime.profile ? { profile: runtime.profile.compiled.profile } : {}),
  };
  return { document: JSON.parse(JSON.stringify(document)), bundles };
}
