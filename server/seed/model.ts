/** The fixture format loaded by `--seed FILE`, `ext seed` and `POST /_emulator/seed`. */
import type { Static } from "elysia";
import { SECRET_VALUE_MAX_BYTES } from "../../common/api-rules";
import { SCOPES } from "../../common/scopes";
import { Profile } from "../profile/model";
import { ApiKeyName, MemberEmail, TEAM_MEMBER_ROLES } from "../resources/accounts/model";
import { EXTENSION_STATUSES, ExtensionFields, Visibility } from "../resources/extensions/model";
import { SLUG_MAX, SLUG_PATTERN } from "../resources/extensions/slug";
import { MAX_INSTALLS_PER_EXTENSION } from "../resources/installs/model";
import {
  DECISION_REASON_MAX,
  LIMIT_REQUEST_SCOPES,
  LIMIT_REQUEST_STATUSES,
  LimitRequestReason,
} from "../resources/limit-requests/model";
import { LimitValues } from "../resources/limits/overrides-model";
import { SecretName } from "../resources/secrets/model";
import { CHANGELOG_MAX, REJECT_REASON_MAX, VERSION_LABEL, VERSION_LABEL_MAX } from "../resources/versions/model";
import { oneOf } from "../schema/one-of";
import { integer, named, t } from "../schema/schema";

const Id = t.String({ pattern: "^[A-Za-z0-9_-]{1,64}$", description: "Letters, digits, _ and -; 1–64 characters" });

/** The newest fixture format this emulator reads and the one `GET /_emulator/export` writes. */
export const FIXTURE_FORMAT_VERSION = 2;

// The fields below marked "export" are written by `GET /_emulator/export` so that a load recreates each row
// exactly (ids, timestamps, statuses, hashes, counters): what a fixture may set and the API may not. Every
// other field is the API's own schema, and the loader runs the API's rule functions on it (server/seed/loader.ts).
// A timestamp's pattern gives its shape; server/seed/instants.ts holds it to the clock's rule.
const At = t.String({
  pattern: "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$",
  description: "ISO 8601 UTC instant with milliseconds (export)",
});
const Sha256 = t.String({ pattern: "^[0-9a-f]{64}$", description: "SHA-256, 64 lowercase hex digits" });

export const FixtureApiKey = t.Object(
  {
    name: ApiKeyName,
    key: t.Optional(
      t.String({
        minLength: 8,
        maxLength: 200,
        description: "Plaintext key; generated (and printed once) when absent",
      }),
    ),
    scopes: t.Array(t.UnionEnum(SCOPES), { minItems: 1, uniqueItems: true }),
    id: t.Optional(Id),
    keyHash: t.Optional(
      t.String({
        pattern: "^(hmac:)?[0-9a-f]{64}$",
        description: "The key as stored (export): its keyed hash, valid only with the data directory it came from",
      }),
    ),
    keyPrefix: t.Optional(t.String({ minLength: 1, maxLength: 40 })),
    createdAt: t.Optional(At),
    revokedAt: t.Optional(At),
  },
  { additionalProperties: false },
);

export const FixtureVersion = t.Object(
  {
    version: t.String({
      minLength: 1,
      maxLength: VERSION_LABEL_MAX,
      pattern: VERSION_LABEL.source,
      description: "Version label, unique per extension",
    }),
    changelog: t.Optional(t.String({ maxLength: CHANGELOG_MAX })),
    status: t.Optional(
      t.UnionEnum(["approved", "pending", "rejected", "archived"], {
        description: "Default approved; the newest approved one becomes current",
      }),
    ),
    id: t.Optional(Id),
    bundle: t.Optional(
      t.Object(
        {
          sha256: Sha256,
          sizeBytes: integer({ minimum: 1 }),
          file: t.Optional(t.String({ maxLength: 200, description: "bundles/<sha256>.tar.gz in the export" })),
        },
        { additionalProperties: false, description: "The uploaded bundle (export); a placeholder when absent" },
      ),
    ),
    soundCount: t.Optional(integer({ minimum: 0 })),
    warnings: t.Optional(t.Array(t.String({ maxLength: 2000 }), { maxItems: 1000 })),
    rejectReason: t.Optional(t.String({ minLength: 1, maxLength: REJECT_REASON_MAX })),
    submittedAt: t.Optional(At),
    approvedAt: t.Optional(At),
    rejectedAt: t.Optional(At),
    archivedAt: t.Optional(At),
  },
  {
    additionalProperties: false,
    description: "Created once; on its exported bundle, or on a placeholder bundle holding only its manifest",
  },
);

export const FixtureInstallCounter = t.Object(
  {
    version: t.String({ minLength: 1, maxLength: VERSION_LABEL_MAX }),
    installed: integer({ minimum: 0, maximum: MAX_INSTALLS_PER_EXTENSION }),
    active: integer({ minimum: 0, maximum: MAX_INSTALLS_PER_EXTENSION }),
    firstInstalledAt: At,
  },
  { additionalProperties: false, description: "One version's install counters, as stored (export)" },
);

export const FixtureSecret = t.Object(
  {
    name: SecretName,
    value: t.Optional(
      t.String({
        minLength: 1,
        maxLength: SECRET_VALUE_MAX_BYTES,
        description: "Only in an export asked for with secret values (checked as PUT checks a value)",
      }),
    ),
    createdAt: t.Optional(At),
    updatedAt: t.Optional(At),
  },
  { additionalProperties: false, description: "A secret; without a value it is loaded with an empty one" },
);

export const FixtureLimitRequest = t.Object(
  {
    id: Id,
    scope: t.UnionEnum(LIMIT_REQUEST_SCOPES),
    extensionId: t.Optional(Id),
    limits: LimitValues,
    reason: LimitRequestReason,
    status: t.UnionEnum(LIMIT_REQUEST_STATUSES),
    decisionReason: t.Optional(t.String({ maxLength: DECISION_REASON_MAX })),
    createdAt: At,
    decidedAt: t.Optional(At),
  },
  { additionalProperties: false, description: "A limit request, as stored (export)" },
);

export const FixtureInstalls = t.Object(
  {
    byVersion: t.Record(t.String(), integer({ minimum: 0, maximum: MAX_INSTALLS_PER_EXTENSION }), {
      description: "Installs ever recorded per version label (an approved version of the extension)",
    }),
    active: t.Optional(
      integer({
        minimum: 0,
        description: "How many are still installed (default all); the oldest versions lose theirs first",
      }),
    ),
  },
  { additionalProperties: false, description: "Replaces the extension's install statistics" },
);

export const FixtureExtension = t.Object(
  {
    id: t.Optional(Id),
    name: ExtensionFields.name,
    short_description: t.Optional(ExtensionFields.short_description),
    description: t.Optional(ExtensionFields.description),
    pricing: t.Optional(ExtensionFields.pricing),
    visibility: t.Optional(Visibility),
    status: t.Optional(t.UnionEnum(EXTENSION_STATUSES, { description: "Set by review (export, or a fixture)" })),
    overrides: t.Optional(LimitValues),
    versions: t.Optional(t.Array(FixtureVersion, { maxItems: 1000 })),
    installs: t.Optional(FixtureInstalls),
    slug: t.Optional(t.String({ maxLength: SLUG_MAX, pattern: SLUG_PATTERN })),
    currentVersionId: t.Optional(Id),
    ratingCount: t.Optional(integer({ minimum: 0 })),
    listedAt: t.Optional(At),
    createdAt: t.Optional(At),
    updatedAt: t.Optional(At),
    installCounters: t.Optional(t.Array(FixtureInstallCounter, { maxItems: 1000 })),
    secrets: t.Optional(t.Array(FixtureSecret, { maxItems: 500 })),
  },
  { additionalProperties: false },
);
export type FixtureExtension = Static<typeof FixtureExtension>;
export type FixtureVersion = Static<typeof FixtureVersion>;

export const FixtureTeamMember = t.Object(
  {
    email: MemberEmail,
    role: oneOf(TEAM_MEMBER_ROLES, {
      description: "The API's roles, or owner: a row for the account's owner, who is counted once either way",
    }),
    id: t.Optional(Id),
    createdAt: t.Optional(At),
  },
  { additionalProperties: false },
);

export type FixtureTeamMember = Static<typeof FixtureTeamMember>;

export const FixtureAccount = t.Object(
  {
    id: Id,
    name: t.String({ minLength: 1, maxLength: 100 }),
    apiKeys: t.Optional(t.Array(FixtureApiKey)),
    overrides: t.Optional(LimitValues),
    teamMembers: t.Optional(t.Array(FixtureTeamMember)),
    extensions: t.Optional(t.Array(FixtureExtension)),
    createdAt: t.Optional(At),
    limitRequests: t.Optional(t.Array(FixtureLimitRequest, { maxItems: 10_000 })),
  },
  { additionalProperties: false },
);

export const Fixture = t.Object(
  {
    formatVersion: t.Optional(
      integer({
        minimum: 1,
        maximum: FIXTURE_FORMAT_VERSION,
        description: "1 when absent; 2 adds the exported fields (ids, timestamps, statuses, hashes, bundles)",
      }),
    ),
    exportedAt: t.Optional(At),
    clock: t.Optional(
      t.Object(
        { now: t.Optional(At), mode: t.Optional(t.UnionEnum(["real", "frozen"])) },
        { additionalProperties: false, description: "The clock to set once loaded (export): now, running or frozen" },
      ),
    ),
    accounts: t.Array(FixtureAccount),
    // The profile the emulator ran with (an export keeps it); applied when an emulator starts from the fixture.
    profile: t.Optional(Profile),
  },
  { additionalProperties: false, ...named("Fixture") },
);
export type Fixture = Static<typeof Fixture>;

export const SeedReport = t.Object(
  {
    accountsCreated: integer({ minimum: 0 }),
    extensionsCreated: integer({ minimum: 0 }),
    keys: t.Array(
      t.Object({
        accountId: t.String(),
        name: t.String(),
        created: t.Boolean({ description: "false when the key already existed (nothing changed)" }),
        key: t.Optional(t.String({ description: "Plaintext, only when the key was generated by this load" })),
      }),
    ),
  },
  { additionalProperties: false, ...named("SeedReport") },
);
export type SeedReport = Static<typeof SeedReport>;
