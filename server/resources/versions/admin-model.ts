/** Schemas of the dashboard's version views (control plane): the review queue and a version's bundle. */
import type { Static } from "elysia";
import type { AudioFormat } from "../../bundles/audio-formats";
import { integer, named, servedAs, t } from "../../schema/schema";

/** The file tree lists at most this many entries; `truncated` says when there were more. */
export const LISTING_MAX = 5_000;

export const ReviewQueueItem = t.Object(
  {
    versionId: t.String(),
    version: t.String(),
    changelog: t.String(),
    bundleSizeBytes: integer({ minimum: 0 }),
    soundCount: integer({ minimum: 0 }),
    warnings: t.Array(t.String()),
    submittedAt: t.String({ format: "date-time" }),
    extensionId: t.String(),
    extensionName: t.String(),
    accountId: t.String(),
  },
  { additionalProperties: false, ...named("ReviewQueueItem") },
);
export type ReviewQueueItem = Static<typeof ReviewQueueItem>;
export const ReviewQueue = t.Object(
  { versions: t.Array(ReviewQueueItem) },
  { additionalProperties: false, ...named("ReviewQueue") },
);

export const BundleContents = t.Object(
  {
    versionId: t.String(),
    extensionId: t.String(),
    accountId: t.String(),
    version: t.String(),
    status: t.String(),
    bundleSizeBytes: integer({ minimum: 0 }),
    bundleSha256: t.String(),
    soundCount: integer({ minimum: 0 }),
    warnings: t.Array(t.String()),
    files: t.Array(
      t.Object(
        {
          path: t.String(),
          size: integer({ minimum: 0 }),
          audio: t.Union([t.String(), t.Null()], { description: "Audio format by extension, or null" }),
        },
        { additionalProperties: false, ...named("BundleFile") },
      ),
    ),
    truncated: t.Boolean({ description: `True when the archive has more than ${LISTING_MAX} files` }),
    manifest: t.Unknown({ description: "manifest.json parsed, or null" }),
  },
  { additionalProperties: false, ...named("BundleContents") },
);
export type BundleContents = Static<typeof BundleContents>;

/** The Content-Type a sound is served with, by its format: the player's only media types. */
export const SOUND_MEDIA_TYPES: Record<AudioFormat, string> = {
  MP3: "audio/mpeg",
  WAV: "audio/wav",
  OGG: "audio/ogg",
  WebM: "audio/webm",
  M4A: "audio/mp4",
  AAC: "audio/aac",
  FLAC: "audio/flac",
};

/** A sound's bytes; documented under each audio media type it can be served as. */
export const SoundBytes = t.String({
  format: "binary",
  description: "The sound's bytes, with its audio Content-Type",
  ...servedAs(...(Object.values(SOUND_MEDIA_TYPES) as [string, ...string[]])),
});
