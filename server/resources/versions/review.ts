/**
 * Review's transitions, the one place a version's status is set: the API's approve and reject (the control
 * plane, auto-approval), the version cap's archiving and the loader's versions (a fixture's, an export's) all
 * go through `decide`, so what each status means (which timestamps it carries, which it may follow) has one
 * home. pending → approved | rejected (review decides once); any status but archived → archived (the cap).
 * What follows for the extension — its status, its current version, listed — is here too, for every caller
 * that plays review (the API, a fixture); an export's extension row keeps the status it was exported with.
 */
import { and, desc, eq, isNotNull, ne, sql } from "drizzle-orm";
import { type Db, param } from "../../db/database";
import { extensions, versions } from "../../db/schema";
import { errors } from "../../errors/catalog";
import type { ExtensionStatus } from "../extensions/model";
import type { LimitsService } from "../limits/service";
import type { Version } from "./writer";

const p = sql.placeholder;

export type ReviewEvent =
  | { to: "approved"; at: string }
  | { to: "rejected"; at: string; reason: string }
  | { to: "archived"; at: string };

/** The columns review sets, as a transition leaves them. */
export type Reviewed = Pick<Version, "status" | "approvedAt" | "rejectedAt" | "rejectReason" | "archivedAt">;

/** What an event makes of a version, or the API's refusal. */
export function transition(v: Pick<Version, "id"> & Reviewed, e: ReviewEvent): Reviewed {
  if (v.status === "archived") throw errors.versionArchived(v.id);
  if (e.to === "archived") return { ...v, status: "archived", archivedAt: e.at };
  if (v.status !== "pending") throw errors.versionNotPending(v.id, v.status);
  if (e.to === "approved") return { ...v, status: "approved", approvedAt: e.at };
  return { ...v, status: "rejected", rejectedAt: e.at, rejectReason: e.reason };
}

export function createReview(deps: {
  db: Db;
  limits: LimitsService;
  /** The "publicly listed" rule (server/resources/extensions/writer.ts). */
  markListed: (extensionId: string, now: string) => void;
}) {
  const { db, limits, markListed } = deps;
  const setReviewedStmt = db
    .update(versions)
    .set({
      status: param("status"),
      approvedAt: param("approvedAt"),
      rejectedAt: param("rejectedAt"),
      rejectReason: param("rejectReason"),
      archivedAt: param("archivedAt"),
    })
    .where(eq(versions.id, p("id")))
    .prepare();
  const currentStmt = db
    .select({ id: versions.id })
    .from(versions)
    .where(and(eq(versions.extensionId, p("extensionId")), eq(versions.status, "approved")))
    .orderBy(desc(versions.seq))
    .limit(1)
    .prepare();
  const everApprovedStmt = db
    .select({ id: versions.id })
    .from(versions)
    .where(and(eq(versions.extensionId, p("extensionId")), isNotNull(versions.approvedAt)))
    .limit(1)
    .prepare();
  const extensionStmt = db
    .select({ status: extensions.status, accountId: extensions.accountId })
    .from(extensions)
    .where(eq(extensions.id, p("id")))
    .prepare();
  const setExtensionStmt = db
    .update(extensions)
    .set({ status: param("status"), currentVersionId: param("current"), updatedAt: param("now") })
    .where(eq(extensions.id, p("id")))
    .prepare();
  const setCurrentStmt = db
    .update(extensions)
    .set({ currentVersionId: param("current") })
    .where(eq(extensions.id, p("id")))
    .prepare();
  const liveStmt = db
    .select()
    .from(versions)
    .where(and(eq(versions.extensionId, p("extensionId")), ne(versions.status, "archived")))
    .orderBy(versions.seq)
    .prepare();

  /** "Current version", its one home: the extension's newest approved version (or none). */
  const currentOf = (extensionId: string): string | null => currentStmt.get({ extensionId })?.id ?? null;

  /** Sets what `e` makes of `v` (refusing as the API refuses); returns the version as it now is. */
  function decide(v: Version, e: ReviewEvent): Version {
    const next = { ...v, ...transition(v, e) };
    setReviewedStmt.run(next);
    return next;
  }

  /**
   * The extension's status after a review event, its current version refreshed and updatedAt moved; `next`
   * gives null when the event leaves the extension as it is.
   */
  function setExtension(extensionId: string, next: (status: ExtensionStatus) => ExtensionStatus | null, now: string) {
    const ext = extensionStmt.get({ id: extensionId });
    if (!ext) throw errors.extensionNotFound(extensionId);
    const status = next(ext.status);
    if (status === null) return;
    setExtensionStmt.run({ id: extensionId, status, current: currentOf(extensionId), now });
    markListed(extensionId, now);
  }

  return {
    decide,
    currentOf,

    /** Points the extension at its current version (the loader's exported rows; review's events do it themselves). */
    syncCurrent(extensionId: string): void {
      setCurrentStmt.run({ id: extensionId, current: currentOf(extensionId) });
    },

    /** A submission puts a draft extension (or one after a rejection) in review; approved and disabled stay. */
    afterSubmission(extensionId: string, now: string): void {
      setExtension(extensionId, (s) => (s === "draft" || s === "rejected" ? "in_review" : null), now);
    },

    /** An approval approves the extension (unless disabled); current = newest approved. */
    afterApproval(extensionId: string, now: string): void {
      setExtension(extensionId, (s) => (s === "disabled" ? s : "approved"), now);
    },

    /** A rejection makes the extension rejected only if none of its versions was ever approved (unless disabled). */
    afterRejection(extensionId: string, now: string): void {
      const everApproved = everApprovedStmt.get({ extensionId }) !== undefined;
      setExtension(extensionId, (s) => (s === "disabled" || everApproved ? s : "rejected"), now);
    },

    /**
     * The version cap, its one home: archives the oldest versions that are neither current nor `keepId` (the one
     * just added) until at most `max_versions_per_extension` (as it resolves) are not archived.
     */
    enforceCap(extensionId: string, keepId: string, now: string): void {
      const ext = extensionStmt.get({ id: extensionId });
      if (!ext) throw errors.extensionNotFound(extensionId);
      const max = limits.resolve("max_versions_per_extension", { accountId: ext.accountId, extensionId }).value;
      const live = liveStmt.all({ extensionId });
      let excess = live.length - max;
      if (excess <= 0) return;
      const current = currentOf(extensionId);
      for (const v of live) {
        if (excess === 0) break;
        if (v.id === keepId || v.id === current) continue;
        decide(v, { to: "archived", at: now });
        excess--;
      }
    },
  };
}

export type Review = ReturnType<typeof createReview>;
