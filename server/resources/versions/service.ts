/**
 * Versions: submission (inspect, then commit blob + row), listing, and the review operations the control
 * plane drives (approveVersion, rejectVersion). Crash safety comes from the order of work: the archive is inspected while
 * still a temp file; it is made durable under its blob id right before the row is inserted, so a row never
 * exists without its blob, and a crash in between leaves only a stray blob that the start-up sweep removes.
 */
import { and, desc, eq, ne } from "drizzle-orm";
import { characterCount } from "../../../common/text/text-length";
import type { Clock } from "../../base/clock";
import { newId } from "../../base/ids";
import type { BlobStore } from "../../blobs/blob-store";
import { type BundleLimits, bundleLimitsFrom } from "../../bundles/bundle-limits";
import type { Db } from "../../db/database";
import { versions } from "../../db/schema";
import type { ErrorDetail } from "../../errors/api-error";
import { errors } from "../../errors/catalog";
import type { ExtensionService } from "../extensions/service";
import type { LimitsService } from "../limits/service";
import { CHANGELOG_MAX, VERSION_LABEL, VERSION_LABEL_MAX, type VersionListItem, type VersionSubmitted } from "./model";
import { createReview } from "./review";
import type { ReceivedUpload } from "./upload";
import { createVersionWriter, type Version } from "./writer";

export type { Version };
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
  // Characters (code points), like every other length of the API (server/schema/text-length.ts).
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
  const writer = createVersionWriter(deps);
  const review = createReview({ db, limits, markListed: deps.extensions.markListed });

  function findById(versionId: string, tx: Pick<Db, "select"> = db): Version {
    const row = tx.select().from(versions).where(eq(versions.id, versionId)).get();
    if (!row) throw errors.versionNotFound(versionId);
    return row;
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
        status: r.status,
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
      // Cheap early refusal, before the bundle is kept; the writer checks again in the transaction.
      if (writer.labelTaken(extensionId, label)) throw errors.versionExists(label);

      // Inspected while it arrived (receiveUpload), against the limits resolved before the body was read.
      const { inspection } = bundle;
      if (inspection.problems.length > 0) throw errors.bundleInvalid(inspection.problems);

      const id = newId("ver", clock.nowMs());
      const blobId = newId("blob", clock.nowMs());
      blobs.commit(bundle.tempFile, blobId);
      let row: Version;
      try {
        row = db.write(() => {
          deps.extensions.findOwned(accountId, extensionId);
          const now = clock.iso();
          const inserted = writer.insertVersion({
            id,
            extensionId,
            version: label,
            changelog,
            bundle: { blobId, bytes: bundle.bytes, sha256: bundle.sha256 },
            soundCount: inspection.soundCount,
            warnings: inspection.warnings,
            submittedAt: now,
          });
          review.enforceCap(extensionId, id, now);
          review.afterSubmission(extensionId, now);
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
      return db.write(() => {
        const now = clock.iso();
        const v = review.decide(findById(versionId), { to: "approved", at: now });
        review.afterApproval(v.extensionId, now);
        return v;
      });
    },

    /** Review rejects a pending version: the extension becomes rejected only if it never had an approved version. */
    rejectVersion(versionId: string, reason: string): Version {
      return db.write(() => {
        const now = clock.iso();
        const v = review.decide(findById(versionId), { to: "rejected", at: now, reason });
        review.afterRejection(v.extensionId, now);
        return v;
      });
    },

    /** The one writer of version rows and review's transitions, for the loader (server/seed/versions.ts). */
    writer,
    review,
  };
}

export type VersionService = ReturnType<typeof createVersionService>;
