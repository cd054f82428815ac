/**
 * The one writer of `versions`: a submission, a fixture's versions and an export's are inserted here, inside
 * the caller's transaction, as a submission leaves a version — pending, next in the extension's order (`seq`),
 * under a label the extension never had (archived ones count: version_exists) and an id no other version has.
 * What review sets afterwards (status, approvedAt, rejectedAt, rejectReason, archivedAt) only review's
 * transitions set (server/resources/versions/review.ts). The bundle's blob must already be in the blob store.
 */
import { and, eq, sql } from "drizzle-orm";
import type { Clock } from "../../base/clock";
import { newId } from "../../base/ids";
import type { Db } from "../../db/database";
import { versions } from "../../db/schema";
import { errors } from "../../errors/catalog";

const p = sql.placeholder;

export type Version = typeof versions.$inferSelect;

/** The bundle a version stands on: its blob (already committed to the blob store), size and digest. */
export interface StoredBundle {
  blobId: string;
  bytes: number;
  sha256: string;
}

export interface NewVersion {
  /** Generated when absent. */
  id?: string;
  extensionId: string;
  version: string;
  changelog?: string;
  bundle: StoredBundle;
  /** Sounds in the manifest (re-checked against the limit at install time); 0 when absent. */
  soundCount?: number;
  /** The inspection's warnings; none when absent. */
  warnings?: readonly string[];
  submittedAt: string;
}

export function createVersionWriter(deps: { db: Db; clock: Clock }) {
  const { db, clock } = deps;
  const byIdStmt = db
    .select({ id: versions.id, extensionId: versions.extensionId, version: versions.version })
    .from(versions)
    .where(eq(versions.id, p("id")))
    .prepare();
  const byLabelStmt = db
    .select()
    .from(versions)
    .where(and(eq(versions.extensionId, p("extensionId")), eq(versions.version, p("label"))))
    .prepare();
  const nextSeqStmt = db
    .select({ seq: sql<number>`COALESCE(MAX(${versions.seq}), 0) + 1` })
    .from(versions)
    .where(eq(versions.extensionId, p("extensionId")))
    .prepare();
  const insertStmt = db
    .insert(versions)
    .values({
      id: p("id"),
      extensionId: p("extensionId"),
      seq: p("seq"),
      version: p("version"),
      changelog: p("changelog"),
      status: p("status"),
      bundleBlobId: p("bundleBlobId"),
      bundleSizeBytes: p("bundleSizeBytes"),
      bundleSha256: p("bundleSha256"),
      soundCount: p("soundCount"),
      warnings: p("warnings"),
      rejectReason: p("rejectReason"),
      submittedAt: p("submittedAt"),
      approvedAt: p("approvedAt"),
      rejectedAt: p("rejectedAt"),
      archivedAt: p("archivedAt"),
    })
    .prepare();

  /** True when the extension already has a version of this label (archived ones count: labels are never reused). */
  const labelTaken = (extensionId: string, label: string) => byLabelStmt.get({ extensionId, label }) !== undefined;

  return {
    labelTaken,
    /** The version with this id (of any extension), if any. */
    byId: (id: string) => byIdStmt.get({ id }),
    /** The extension's version of this label, if any. */
    byLabel: (extensionId: string, label: string): Version | undefined => byLabelStmt.get({ extensionId, label }),

    insertVersion(input: NewVersion): Version {
      if (labelTaken(input.extensionId, input.version)) throw errors.versionExists(input.version);
      if (input.id !== undefined) {
        const holder = byIdStmt.get({ id: input.id });
        if (holder) throw errors.idTaken(input.id, `a version of extension ${holder.extensionId}`);
      }
      const row: Version = {
        id: input.id ?? newId("ver", clock.nowMs()),
        extensionId: input.extensionId,
        seq: nextSeqStmt.get({ extensionId: input.extensionId })?.seq ?? 1,
        version: input.version,
        changelog: input.changelog ?? "",
        status: "pending",
        bundleBlobId: input.bundle.blobId,
        bundleSizeBytes: input.bundle.bytes,
        bundleSha256: input.bundle.sha256,
        soundCount: input.soundCount ?? 0,
        warnings: JSON.stringify(input.warnings ?? []),
        rejectReason: null,
        submittedAt: input.submittedAt,
        approvedAt: null,
        rejectedAt: null,
        archivedAt: null,
      };
      insertStmt.run(row);
      return row;
    },
  };
}

export type VersionWriter = ReturnType<typeof createVersionWriter>;
