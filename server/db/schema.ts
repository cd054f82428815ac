/**
 * The whole persistent model of the emulator. Timestamps are ISO 8601 strings from the emulator clock,
 * JSON columns are text. Every child row cascades from its extension or account so a delete never
 * leaves orphans; blobs (bundles) are files referenced by `bundleBlobId` and are removed by the
 * service that deletes the row (plus a start-up sweep for strays).
 */

import { sql } from "drizzle-orm";
import { blob, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { VISIBILITIES } from "../../common/api-rules";

// The values of the enumerated columns: SQLite stores text, drizzle types each column by its list, and the
// models' enums are these lists (src/*/model.ts import them; the visibilities are one of the API's rules the
// tools read too: common/api-rules.ts), so a row read is already of the model's type.
export const VERSION_STATUSES = ["pending", "approved", "rejected", "archived"] as const;
export const EXTENSION_STATUSES = ["draft", "in_review", "approved", "rejected", "disabled"] as const;
/** The roles the API adds members with; "owner" is the account itself (always counted), so it cannot be added. */
export const MEMBER_ROLES = ["admin", "developer", "viewer"] as const;
/** A stored member's role: the API's, or "owner" for a fixture's row standing for the account's owner. */
export const TEAM_MEMBER_ROLES = [...MEMBER_ROLES, "owner"] as const;
export const LIMIT_REQUEST_STATUSES = ["pending", "approved", "rejected"] as const;
export const LIMIT_REQUEST_SCOPES = ["account", "extension"] as const;

export const accounts = sqliteTable("accounts", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  createdAt: text("created_at").notNull(),
});

export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** SHA-256 of the plaintext key, hex. The plaintext is never stored. */
    keyHash: text("key_hash").notNull(),
    /** First characters of the key, safe to show in listings ("ext_AbCd…"). */
    keyPrefix: text("key_prefix").notNull(),
    /** JSON array of scope strings. */
    scopes: text("scopes").notNull(),
    createdAt: text("created_at").notNull(),
    revokedAt: text("revoked_at"),
  },
  (t) => [
    uniqueIndex("api_keys_hash_idx").on(t.keyHash),
    index("api_keys_account_idx").on(t.accountId),
    // The active keys by name, then account: a start finds the dashboard keys of the previous run (by name), and a
    // fixture's key is found in its account (by both), without reading every key of that name — one key named "ci"
    // in each of 20,000 accounts made a fixture's load quadratic (test/db/query-plans.test.ts).
    index("api_keys_active_name_account_idx").on(t.name, t.accountId).where(sql`${t.revokedAt} IS NULL`),
  ],
);

export const teamMembers = sqliteTable(
  "team_members",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    role: text("role", { enum: TEAM_MEMBER_ROLES }).notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [uniqueIndex("team_members_account_email_idx").on(t.accountId, t.email)],
);

export const accountOverrides = sqliteTable(
  "account_overrides",
  {
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    limitKey: text("limit_key").notNull(),
    value: integer("value").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.limitKey] })],
);

export const extensions = sqliteTable(
  "extensions",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    slug: text("slug").notNull(),
    name: text("name").notNull(),
    shortDescription: text("short_description").notNull().default(""),
    description: text("description").notNull().default(""),
    /** JSON object, at least {"type":"free"}. */
    pricing: text("pricing").notNull(),
    visibility: text("visibility", { enum: VISIBILITIES }).notNull().default("private"),
    status: text("status", { enum: EXTENSION_STATUSES }).notNull().default("draft"),
    currentVersionId: text("current_version_id"),
    ratingCount: integer("rating_count").notNull().default(0),
    /** First instant the extension was publicly listed (approved + public); never cleared. */
    listedAt: text("listed_at"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [uniqueIndex("extensions_slug_idx").on(t.slug), index("extensions_account_idx").on(t.accountId, t.createdAt)],
);

export const extensionOverrides = sqliteTable(
  "extension_overrides",
  {
    extensionId: text("extension_id")
      .notNull()
      .references(() => extensions.id, { onDelete: "cascade" }),
    limitKey: text("limit_key").notNull(),
    value: integer("value").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.extensionId, t.limitKey] })],
);

export const versions = sqliteTable(
  "versions",
  {
    id: text("id").primaryKey(),
    extensionId: text("extension_id")
      .notNull()
      .references(() => extensions.id, { onDelete: "cascade" }),
    /** Monotonic per extension: orders versions without relying on timestamps (the clock can move back). */
    seq: integer("seq").notNull(),
    version: text("version").notNull(),
    changelog: text("changelog").notNull().default(""),
    status: text("status", { enum: VERSION_STATUSES }).notNull().default("pending"),
    bundleBlobId: text("bundle_blob_id").notNull(),
    bundleSizeBytes: integer("bundle_size_bytes").notNull(),
    bundleSha256: text("bundle_sha256").notNull(),
    /** Number of sounds in the manifest, re-checked against the resolved limit at install time. */
    soundCount: integer("sound_count").notNull().default(0),
    /** JSON array of warning strings produced by the inspection. */
    warnings: text("warnings").notNull().default("[]"),
    rejectReason: text("reject_reason"),
    submittedAt: text("submitted_at").notNull(),
    approvedAt: text("approved_at"),
    rejectedAt: text("rejected_at"),
    archivedAt: text("archived_at"),
  },
  (t) => [
    uniqueIndex("versions_extension_label_idx").on(t.extensionId, t.version),
    uniqueIndex("versions_extension_seq_idx").on(t.extensionId, t.seq),
    index("versions_blob_idx").on(t.bundleBlobId),
  ],
);

export const secrets = sqliteTable(
  "secrets",
  {
    extensionId: text("extension_id")
      .notNull()
      .references(() => extensions.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** AES-256-GCM ciphertext with its auth tag; the plaintext never touches the database. */
    ciphertext: blob("ciphertext", { mode: "buffer" }).notNull(),
    iv: blob("iv", { mode: "buffer" }).notNull(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.extensionId, t.name] })],
);

/**
 * Install statistics as counters, one row per (extension, version) ever installed: the API shows only
 * aggregates, so every read is O(versions) however many installs there are. `active` can exceed
 * `installed` on a version that received a rollout from another one.
 */
export const installCounters = sqliteTable(
  "install_counters",
  {
    extensionId: text("extension_id")
      .notNull()
      .references(() => extensions.id, { onDelete: "cascade" }),
    versionId: text("version_id")
      .notNull()
      .references(() => versions.id, { onDelete: "cascade" }),
    /** Installs ever recorded of this version (their sum is the extension's installCount). */
    installed: integer("installed").notNull().default(0),
    /** Installs of this version not uninstalled (moved here or away by a rollout). */
    active: integer("active").notNull().default(0),
    /** When this version was first installed: uninstalls spread over versions take the oldest first. */
    firstInstalledAt: text("first_installed_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.extensionId, t.versionId] })],
);

export const limitRequests = sqliteTable(
  "limit_requests",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    /** "account" or "extension". */
    scope: text("scope", { enum: LIMIT_REQUEST_SCOPES }).notNull(),
    extensionId: text("extension_id").references(() => extensions.id, { onDelete: "cascade" }),
    /** JSON object: limit key -> desired value. */
    limits: text("limits").notNull(),
    reason: text("reason").notNull(),
    status: text("status", { enum: LIMIT_REQUEST_STATUSES }).notNull().default("pending"),
    decisionReason: text("decision_reason"),
    createdAt: text("created_at").notNull(),
    decidedAt: text("decided_at"),
  },
  (t) => [index("limit_requests_account_idx").on(t.accountId)],
);

/** Every table, parents before children: the order a snapshot puts rows back in. A new table is added here. */
export const TABLES_PARENTS_FIRST = [
  accounts,
  apiKeys,
  teamMembers,
  accountOverrides,
  extensions,
  extensionOverrides,
  versions,
  secrets,
  installCounters,
  limitRequests,
];
