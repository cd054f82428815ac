/** The admin's review queue: every pending version, oldest submission first, with what a reviewer needs. */
import type { Db } from "../db/database";
import type { ReviewQueueItem } from "./admin-model";

/** The queue is as long as the pending versions; this bounds one answer. */
export const REVIEW_QUEUE_MAX = 1_000;

export function listPendingVersions(db: Db): ReviewQueueItem[] {
  const rows = db.$client
    .prepare<Omit<ReviewQueueItem, "warnings"> & { warnings: string }, [number]>(
      `SELECT v.id AS versionId, v.version, v.changelog, v.bundle_size_bytes AS bundleSizeBytes, v.sound_count AS soundCount,
         v.warnings, v.submitted_at AS submittedAt, e.id AS extensionId, e.name AS extensionName, e.account_id AS accountId
       FROM versions v JOIN extensions e ON e.id = v.extension_id
       WHERE v.status = 'pending' ORDER BY v.submitted_at, v.id LIMIT ?`,
    )
    .all(REVIEW_QUEUE_MAX);
  return rows.map((r) => ({ ...r, warnings: JSON.parse(r.warnings) as string[] }));
}
