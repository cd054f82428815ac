/**
 * Versions: submission (inspect, then commit blob + row), listing, and the review operations the control
 * plane drives (approveVersion, rejectVersion). Crash safety comes from the order of work: the archive is inspected while
 * still a temp file; it is made durable under its blob id right before the row is inserted, so a row never
 * exists without its blob, and a crash in between leaves only a stray blob that the start-up sweep removes.
 */
import { and, desc, eq, isNotNull, ne } from "drizzle-orm";
import { characterCount } from "../../client/text-length";
import type { BlobStore } from "../blobs/blob-store";
import { type BundleLimits, bundleLimitsFrom } from "../bundles/bundle-limits";
import type { Clock } from "../clock";
import type { Db } from "../db/database";
import { extensions, versions } from "../db/schema";
import type { ErrorDetail } from "../errors/api-error";
import { errors } from "../errors/catalog";
import { type ExtensionService, markListedIfPublic } from "../extensions/service";
import { newId } from "../ids";
import type { LimitsService } from "../limits/service";
import {
  CHANGELOG_MAX,
  VERSION_LABEL,
  VERSION_LABEL_MAX,
  type VersionListItem,
  type VersionStatus,
  type VersionSubmitted,
} from "./model";
import { enforceVersionCap, labelTaken, nextSeq, refreshCurrent } from "./rules";
import type { ReceivedUpload } from "./upload";

export type Version = typeof versions.$inferSelect;
export type SubmittedListener = (v: { id: string; extensionId: string }) => void;

/** The submit form's field rules; every problem is reported at once. */
function validateFields(upload: ReceivedUpload): { version: string; changelog: string } {
  const problems: ErrorDetail[] = [];
  const { version, changelog } = upload.fields;
  if (version === undefined || version === "") problems.push({ field: "version", message: "version is required" });
  else if (characterCount(version) > VERSION_LABEL_MAX)
    problems.push({ field: "version", message: `version must be at most ${VERSION_LABEL_MAX} characters` });
  else if (!VERSION_LABEL.test(version))
    problems.push({
      field: "version",
      message: "version must start with a letter or digit and contain only letters, digits, '.', '+', '_' and '-'",
    });
  // Characters (code points), like every other length of the API (src/http/text-length.ts).
  if (changelog !== undefined && characterCount(changelog) > CHANGELOG_MAX)
    problems.push({ field: "changelog", message: `changelog must be at most ${CHANGELOG_MAX} characters` });
  if (!upload.bundle) problems.push({ field: "bundle", message: "bundle is required (a .tar.gz file part)" });
  if (problems.length > 0) throw errors.validation(problems);
  return { version: version!, changelog: changelog ?? "" };
}

export function createVersionService(deps: {
  db: Db;
  clock: Clock;
  limits: LimitsService;
  blobs: BlobStore;
  extensions: ExtensionService;
}) {
  const { db, clock, limits, blobs } = deps;
  const listeners: SubmittedListener[] = [];

  function findById(versionId: string, tx: Pick<Db, "select"> = db): Version {
    const row = tx.select().from(versions).where(eq(versions.id, versionId)).get();
    if (!row) throw errors.versionNotFound(versionId);
    return row;
  }

  /**
   * Review decides once (api-decisions: pending → approved | rejected). Re-deciding would leave a rejected
   * version with an approvedAt, or pull the current version out from under the installs counting it.
   */
  function findPending(versionId: string, tx: Pick<Db, "select">): Version {
    const v = findById(versionId, tx);
    if (v.status === "archived") throw errors.versionArchived(versionId);
    if (v.status !== "pending") throw errors.versionNotPending(versionId, v.status);
    return v;
  }

  return {
    findById: (versionId: string) => findById(versionId),

    onSubmitted(listener: SubmittedListener): void {
      listeners.push(listener);
    },

    /**
     * The resolved limits a submission is received and inspected against (the bundle total caps the body);
     * 404 first if the extension is not the caller's.
     */
    bundleLimits(accountId: string, extensionId: string): BundleLimits {
      deps.extensions.findOwned(accountId, extensionId);
      const scope = { accountId, extensionId };
      return bundleLimitsFrom((k) => limits.resolve(k, scope).value);
    },

    list(accountId: string, extensionId: string, includeArchived: boolean): VersionListItem[] {
      deps.extensions.findOwned(accountId, extensionId);
      const rows = db
        .select()
        .from(versions)
        .where(
          and(eq(versions.extensionId, extensionId), includeArchived ? undefined : ne(versions.status, "archived")),
        )
        .orderBy(desc(versions.seq))
        .all();
      return rows.map((r) => ({
        id: r.id,
        version: r.version,
        status: r.status as VersionStatus,
        changelog: r.changelog,
        bundleSizeBytes: r.bundleSizeBytes,
        submittedAt: r.submittedAt,
        ...(r.status === "approved" && r.approvedAt ? { approvedAt: r.approvedAt } : {}),
        ...(r.status === "rejected" && r.rejectReason !== null ? { rejectReason: r.rejectReason } : {}),
      }));
    },

    /**
     * Turns a received upload into a pending version. The temp file belongs to the request, which removes it
     * before answering whatever happens (after a success it has already been moved into the blob store).
     */
    submit(accountId: string, extensionId: string, upload: ReceivedUpload): VersionSubmitted {
      deps.extensions.findOwned(accountId, extensionId);
      const { version: label, changelog } = validateFields(upload);
      const bundle = upload.bundle!;
      // Cheap early refusal; the transaction below checks again.
      if (labelTaken(db, extensionId, label)) throw errors.versionExists(label);

      const scope = { accountId, extensionId };
      // Inspected while it arrived (receiveUpload), against the limits resolved before the body was read.
      const { inspection } = bundle;
      if (inspection.problems.length > 0) throw errors.bundleInvalid(inspection.problems);

      const id = newId("ver", clock.nowMs());
      const blobId = newId("blob", clock.nowMs());
      blobs.commit(bundle.tempFile, blobId);
      let row: Version;
      try {
        row = db.write((tx) => {
          const ext = deps.extensions.findOwned(accountId, extensionId);
          if (labelTaken(tx, extensionId, label)) throw errors.versionExists(label);
          const now = clock.iso();
          const seq = nextSeq(tx, extensionId);
          const inserted: Version = {
            id,
            extensionId,
            seq,
            version: label,
            changelog,
            status: "pending",
            bundleBlobId: blobId,
            bundleSizeBytes: bundle.bytes,
            bundleSha256: bundle.sha256,
            soundCount: inspection.soundCount,
            warnings: JSON.stringify(inspection.warnings),
            rejectReason: null,
            submittedAt: now,
            approvedAt: null,
            rejectedAt: null,
            archivedAt: null,
          };
          tx.insert(versions).values(inserted).run();
          enforceVersionCap(
            tx,
            extensionId,
            id,
            ext.currentVersionId,
            limits.resolve("max_versions_per_extension", scope).value,
            now,
          );
          // A first submission (or one after a rejection) puts the extension in review; approved and disabled stay.
          if (ext.status === "draft" || ext.status === "rejected") {
            tx.update(extensions)
              .set({ status: "in_review", updatedAt: now })
              .where(eq(extensions.id, extensionId))
              .run();
          }
          return inserted;
        });
      } catch (e) {
        blobs.delete(blobId);
        throw e;
      }
      for (const listener of listeners) listener({ id: row.id, extensionId });
      return {
        version: { id: row.id, version: row.version, status: "pending", submittedAt: row.submittedAt },
        ...(inspection.warnings.length > 0 ? { warnings: inspection.warnings } : {}),
      };
    },

    /** Review approves a pending version: it is approved, the extension approved (unless disabled) and current = newest approved. */
    approveVersion(versionId: string): Version {
      return db.write((tx) => {
        const v = findPending(versionId, tx);
        const now = clock.iso();
        tx.update(versions).set({ status: "approved", approvedAt: now }).where(eq(versions.id, versionId)).run();
        const ext = tx.select().from(extensions).where(eq(extensions.id, v.extensionId)).get()!;
        const status = ext.status === "disabled" ? "disabled" : "approved";
        tx.update(extensions)
          .set({ status, currentVersionId: refreshCurrent(tx, v.extensionId), updatedAt: now })
          .where(eq(extensions.id, v.extensionId))
          .run();
        markListedIfPublic(tx, v.extensionId, now);
        return findById(versionId, tx);
      });
    },

    /** Review rejects a pending version: the extension becomes rejected only if it never had an approved version. */
    rejectVersion(versionId: string, reason: string): Version {
      return db.write((tx) => {
        const v = findPending(versionId, tx);
        const now = clock.iso();
        tx.update(versions)
          .set({ status: "rejected", rejectReason: reason, rejectedAt: now })
          .where(eq(versions.id, versionId))
          .run();
        const ext = tx.select().from(extensions).where(eq(extensions.id, v.extensionId)).get()!;
        const everApproved =
          tx
            .select({ id: versions.id })
            .from(versions)
            .where(and(eq(versions.extensionId, v.extensionId), isNotNull(versions.approvedAt)))
            .get() !== undefined;
        const status = ext.status === "disabled" ? "disabled" : everApproved ? ext.status : "rejected";
        tx.update(extensions)
          .set({ status, currentVersionId: refreshCurrent(tx, v.extensionId), updatedAt: now })
          .where(eq(extensions.id, v.extensionId))
          .run();
        return findById(versionId, tx);
      });
    },
  };
}

export type VersionService = ReturnType<typeof createVersionService>;
