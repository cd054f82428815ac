/** Version schemas: the submit form's rules, response shapes, the OpenAPI document and tests all use these. */
import type { Static } from "elysia";
import { VERSION_STATUSES } from "../../db/schema";
import { integer, named, openInDocument, t } from "../../schema/schema";

export { VERSION_STATUSES };
export type VersionStatus = (typeof VERSION_STATUSES)[number];

export const VERSION_LABEL_MAX = 64;
/** Starts with a letter or digit, then letters, digits, ".", "+", "_", "-" (semver fits, so do build tags). */
export const VERSION_LABEL = /^[A-Za-z0-9][A-Za-z0-9.+_-]{0,63}$/;
export const CHANGELOG_MAX = 10_000;
/** Review's reason for rejecting a version. */
export const REJECT_REASON_MAX = 2000;

const Timestamp = t.String({ format: "date-time", examples: ["2026-11-22T10:00:00.000Z"] });
const Status = t.UnionEnum(VERSION_STATUSES, {
  description:
    "pending → approved | rejected (review); archived when pushed out by the version cap. The platform's full set is not published: expect others.",
  ...openInDocument(),
});

/** The multipart form, for the OpenAPI document only (the route reads the body itself, streaming). */
export const SubmitVersionForm = t.Object(
  {
    version: t.String({
      minLength: 1,
      maxLength: VERSION_LABEL_MAX,
      pattern: VERSION_LABEL.source,
      description: "Version label, unique per extension",
    }),
    changelog: t.Optional(t.String({ maxLength: CHANGELOG_MAX, description: "Markdown" })),
    // A plain binary string: t.File would document a default of "File".
    bundle: t.String({
      format: "binary",
      contentMediaType: "application/gzip",
      description: ".tar.gz of the compiled output directory (see docs/bundle-layout.md)",
    }),
  },
  { additionalProperties: false, ...named("VersionSubmission") },
);

export const VersionSubmitted = t.Object(
  {
    version: t.Object(
      {
        id: t.String({ examples: ["ver_01jd2x7k3m9q8r4t5v6w7x8y9z"] }),
        version: t.String(),
        status: t.Literal("pending"),
        submittedAt: Timestamp,
      },
      { additionalProperties: false },
    ),
    warnings: t.Optional(
      t.Array(t.String(), {
        description: "Present when the bundle is valid but has warnings (a sound over 5 MB, say)",
      }),
    ),
  },
  { additionalProperties: false, ...named("VersionSubmitted") },
);
export type VersionSubmitted = Static<typeof VersionSubmitted>;

export const VersionListItem = t.Object(
  {
    id: t.String(),
    version: t.String(),
    status: Status,
    changelog: t.String(),
    bundleSizeBytes: integer({ minimum: 0, description: "Bytes of the uploaded archive" }),
    submittedAt: Timestamp,
    approvedAt: t.Optional(Timestamp),
    rejectReason: t.Optional(t.String({ description: "Present on rejected versions: the reason review gave" })),
  },
  { additionalProperties: false, ...named("Version") },
);
export type VersionListItem = Static<typeof VersionListItem>;

export const VersionList = t.Object(
  { versions: t.Array(VersionListItem) },
  { additionalProperties: false, ...named("VersionList") },
);

/**
 * Open, unlike bodies: an unknown query parameter is ignored here as on every other GET. Explicit, because
 * with `normalize: false` Elysia closes any object schema that does not say.
 */
export const VersionListQuery = t.Object(
  { include: t.Optional(t.Literal("archived", { description: "include=archived also lists archived versions" })) },
  { additionalProperties: true },
);
