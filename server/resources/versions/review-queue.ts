/** The admin's review queue: every pending version, oldest submission first, with what a reviewer needs. */
import { asc, eq } from "drizzle-orm";
import type { Db } from "../../db/database";
import { extensions, versions } from "../../db/schema";
import type { ReviewQueueItem } from "./admin-model";

/** The queue is as long as the pending versions; this bounds one answer. */
export const REVIEW_QUEUE_MAX = 1_000;

export function createReviewQueue(db: Db) {
  const pendingStmt = db
    .select({
      versionId: versions.id,
      version: versions.version,
      changelog: versions.changelog,
      bundleSizeBytes: versions.bundleSizeBytes,
      soundCount: versions.soundCount,
      warnings: versions.warnings,
      submittedAt: versions.submittedAt,
      extensionId: extensions.id,
      extensionName: extensions.name,
      accountId: extensions.accountId,
    })
    .from(versions)
    .innerJoin(extensions, eq(extensions.id, versions.extensionId))
    .where(eq(versions.status, "pending"))
    .orderBy(asc(versions.submittedAt), asc(versions.id))
    .limit(REVIEW_QUEUE_MAX)
    .prepare();
  return {
    listPending(): ReviewQueueItem[] {
      return pendingStmt.all().map((r) => ({ ...r, warnings: JSON.parse(r.warnings) as string[] }));
    },
  };
}

export type ReviewQueue = ReturnType<typeof createReviewQueue>;
