/**
 * The whole state of an emulator as a fixture document (format 2): every row with its id, timestamps,
 * status and hash, so loading it recreates each developer-API read exactly, plus the bundle files it names.
 * Secret values stay sealed unless asked for; API keys are written as hashes, except those a fixture gave
 * in plaintext. Read in one read transaction, so the document is one consistent picture.
 */
import type { Database } from "bun:sqlite";
import type { Runtime } from "../runtime";
import { bundleFileName } from "../seed/bundle-files";
import { FIXTURE_FORMAT_VERSION, type Fixture, type FixtureTeamMember } from "../seed/model";

/** The media type of an export archive (src/exports/archive.ts), here so its users need not load that module. */
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

type Row = Record<string, unknown>;
const all = (client: Database, sql: string, ...params: string[]) => client.prepare<Row, string[]>(sql).all(...params);
/** Optional fields are left out rather than written as null, as a hand-written fixture would. */
const opt = <K extends string, V>(key: K, value: V | null | undefined) =>
  (value === null || value === undefined ? {} : { [key]: value }) as Partial<Record<K, V>>;
const str = (v: unknown) => v as string;
const num = (v: unknown) => v as number;

export function exportState(runtime: Runtime, options: ExportOptions = {}): ExportedState {
  const client = runtime.db.$client;
  const bundles = new Map<string, string>();
  const read = () =>
    runtime.db.read(() => {
      const overrides = (table: string, column: string, id: string) =>
        Object.fromEntries(
          all(client, `SELECT limit_key, value FROM ${table} WHERE ${column} = ? ORDER BY limit_key`, id).map((r) => [
            str(r.limit_key),
            num(r.value),
          ]),
        );
      return all(client, "SELECT * FROM accounts ORDER BY created_at, id").map((acc) => {
        const accountId = str(acc.id);
        const apiKeys = all(
          client,
          "SELECT * FROM api_keys WHERE account_id = ? ORDER BY created_at, id",
          accountId,
        ).map((k) => {
          const plaintext = runtime.fixturePlaintexts.get(str(k.key_hash));
          return {
            id: str(k.id),
            name: str(k.name),
            ...(plaintext !== undefined ? { key: plaintext } : { keyHash: str(k.key_hash) }),
            keyPrefix: str(k.key_prefix),
            scopes: JSON.parse(str(k.scopes)),
            createdAt: str(k.created_at),
            ...opt("revokedAt", str(k.revoked_at)),
          };
        });
        const teamMembers = all(
          client,
          "SELECT * FROM team_members WHERE account_id = ? ORDER BY created_at, id",
          accountId,
        ).map((m) => ({
          id: str(m.id),
          email: str(m.email),
          // Written only by the API or a fixture, both held to the model's roles.
          role: str(m.role) as FixtureTeamMember["role"],
          createdAt: str(m.created_at),
        }));
        const extensions = all(
          client,
          "SELECT * FROM extensions WHERE account_id = ? ORDER BY created_at, id",
          accountId,
        ).map((x) => {
          const extensionId = str(x.id);
          const versionRows = all(client, "SELECT * FROM versions WHERE extension_id = ? ORDER BY seq", extensionId);
          const labels = new Map(versionRows.map((v) => [str(v.id), str(v.version)]));
          const versions = versionRows.map((v) => {
            const sha256 = str(v.bundle_sha256);
            if (!bundles.has(sha256)) bundles.set(sha256, str(v.bundle_blob_id));
            return {
              id: str(v.id),
              version: str(v.version),
              changelog: str(v.changelog),
              status: str(v.status) as "approved",
              bundle: { sha256, sizeBytes: num(v.bundle_size_bytes), file: bundleFileName(sha256) },
              soundCount: num(v.sound_count),
              warnings: JSON.parse(str(v.warnings)),
              ...opt("rejectReason", str(v.reject_reason)),
              submittedAt: str(v.submitted_at),
              ...opt("approvedAt", str(v.approved_at)),
              ...opt("rejectedAt", str(v.rejected_at)),
              ...opt("archivedAt", str(v.archived_at)),
            };
          });
          const installCounters = all(
            client,
            "SELECT * FROM install_counters WHERE extension_id = ? ORDER BY first_installed_at, version_id",
            extensionId,
          ).map((c) => ({
            version: labels.get(str(c.version_id))!,
            installed: num(c.installed),
            active: num(c.active),
            firstInstalledAt: str(c.first_installed_at),
          }));
          const secrets = all(client, "SELECT * FROM secrets WHERE extension_id = ? ORDER BY name", extensionId).map(
            (s) => ({
              name: str(s.name),
              ...(options.includeSecretValues
                ? {
                    value: runtime.cipher.open(extensionId, str(s.name), {
                      ciphertext: s.ciphertext as Buffer,
                      iv: s.iv as Buffer,
                    }),
                  }
                : {}),
              createdAt: str(s.created_at),
              updatedAt: str(s.updated_at),
            }),
          );
          return {
            id: extensionId,
            slug: str(x.slug),
            name: str(x.name),
            short_description: str(x.short_description),
            description: str(x.description),
            pricing: JSON.parse(str(x.pricing)),
            visibility: str(x.visibility) as "private",
            status: str(x.status) as "draft",
            ...opt("currentVersionId", str(x.current_version_id)),
            ratingCount: num(x.rating_count),
            ...opt("listedAt", str(x.listed_at)),
            createdAt: str(x.created_at),
            updatedAt: str(x.updated_at),
            overrides: overrides("extension_overrides", "extension_id", extensionId),
            versions,
            installCounters,
            // An empty value (a secret loaded from an export without values) is written as no value.
            secrets: secrets.map((s) => ("value" in s && s.value === "" ? { ...s, value: undefined } : s)),
          };
        });
        const limitRequests = all(
          client,
          "SELECT * FROM limit_requests WHERE account_id = ? ORDER BY created_at, id",
          accountId,
        ).map((r) => ({
          id: str(r.id),
          scope: str(r.scope) as "account",
          ...opt("extensionId", str(r.extension_id)),
          limits: JSON.parse(str(r.limits)),
          reason: str(r.reason),
          status: str(r.status) as "pending",
          ...opt("decisionReason", str(r.decision_reason)),
          createdAt: str(r.created_at),
          ...opt("decidedAt", str(r.decided_at)),
        }));
        return {
          id: accountId,
          name: str(acc.name),
          createdAt: str(acc.created_at),
          apiKeys,
          overrides: overrides("account_overrides", "account_id", accountId),
          teamMembers,
          extensions,
          limitRequests,
        };
      });
    });
  const clock = runtime.clock.state();
  const document: Fixture = {
    formatVersion: FIXTURE_FORMAT_VERSION,
    exportedAt: clock.now,
    clock: { now: clock.now, mode: clock.mode },
    accounts: read(),
    // The profile this emulator answers with: an emulator started from the export answers the same way.
    ...(runtime.profile ? { profile: runtime.profile.compiled.profile } : {}),
  };
  return { document: JSON.parse(JSON.stringify(document)), bundles };
}
