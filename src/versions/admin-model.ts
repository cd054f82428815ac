/** Schemas of the dashboard's version views (control plane): the review queue and a version's bundle. */
import { t, type Static } from "elysia";

/** The file tree lists at most this many entries; `truncated` says when there were more. */
export const LISTING_MAX = 5_000;

export const ReviewQueueItem = t.Object(
  {
    versionId: t.String(),
    version: t.String(),
    changelog: t.String(),
    bundleSizeBytes: t.Integer(),
    soundCount: t.Integer(),
    warnings: t.Array(t.String()),
    submittedAt: t.String({ format: "date-time" }),
    extensionId: t.String(),
    extensionName: t.String(),
    accountId: t.String(),
  },
  { additionalProperties: false, title: "ReviewQueueItem" },
);
export type ReviewQueueItem = Static<typeof ReviewQueueItem>;
export const ReviewQueue = t.Object({ versions: t.Array(ReviewQueueItem) }, { additionalProperties: false, title: "ReviewQueue" });

export const BundleContents = t.Object(
  {
    versionId: t.String(),
    extensionId: t.String(),
    accountId: t.String(),
    version: t.String(),
    status: t.String(),
    bundleSizeBytes: t.Integer(),
    bundleSha256: t.String(),
    soundCount: t.Integer(),
    warnings: t.Array(t.String()),
    files: t.Array(t.Object({ path: t.String(), size: t.Integer(), audio: t.Union([t.String(), t.Null()], { description: "Audio format by extension, or null" }) }, { additionalProperties: false })),
    truncated: t.Boolean({ description: `True when the archive has more than ${LISTING_MAX} files` }),
    manifest: t.Unknown({ description: "manifest.json parsed, or null" }),
  },
  { additionalProperties: false, title: "BundleContents" },
);
export type BundleContents = Static<typeof BundleContents>;
