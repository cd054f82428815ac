import { eq } from "drizzle-orm";
import { Elysia } from "elysia";
import { extensions } from "../db/schema";
import { apiAuth } from "../http/auth";
import type { Version } from "../resources/versions/service";
import { AdminStatus, IdParams, RejectBody, ReviewedVersion, VersionIdParams } from "../runtime/control-state/model";
import type { Runtime } from "../runtime/runtime";
import { controlRoute } from "./route-kit";

const DECISION_REFUSALS = ["version_not_found", "version_not_pending", "version_archived"] as const;

/** Review decisions (what a platform reviewer does) and the admin status of an extension. */
export function reviewRoutes(runtime: Runtime) {
  const { versions, adminStatus } = runtime.services;
  const reviewed = (v: Version): ReviewedVersion => {
    const ext = runtime.db
      .select({ id: extensions.id, status: extensions.status, currentVersionId: extensions.currentVersionId })
      .from(extensions)
      .where(eq(extensions.id, v.extensionId))
      .get()!;
    return {
      version: {
        id: v.id,
        extensionId: v.extensionId,
        version: v.version,
        status: v.status,
        submittedAt: v.submittedAt,
        approvedAt: v.approvedAt,
        rejectedAt: v.rejectedAt,
        rejectReason: v.rejectReason,
      },
      extension: ext,
    };
  };
  return new Elysia()
    .use(apiAuth)
    .post(
      "/versions/:versionId/approve",
      ({ params }) => reviewed(versions.approveVersion(params.versionId)),
      controlRoute("approveVersion", "Approve a version", {
        description:
          "Only a pending version can be decided (409 version_not_pending otherwise; 409 version_archived for an archived one). The version becomes approved (approvedAt set), the extension approved (unless disabled) and its currentVersionId the newest approved version.",
        params: VersionIdParams,
        answers: { 200: ReviewedVersion },
        refusals: DECISION_REFUSALS,
      }),
    )
    .post(
      "/versions/:versionId/reject",
      ({ params, body }) => reviewed(versions.rejectVersion(params.versionId, body.reason)),
      controlRoute("rejectVersion", "Reject a version with a reason", {
        description:
          "Only a pending version can be decided (409 version_not_pending otherwise). The extension becomes rejected only if none of its versions was ever approved.",
        params: VersionIdParams,
        body: RejectBody,
        answers: { 200: ReviewedVersion },
        refusals: DECISION_REFUSALS,
      }),
    )
    .post(
      "/extensions/:id/disable",
      ({ params }) => adminStatus.disable(params.id),
      controlRoute("disableExtension", "Disable an extension (admin status)", {
        params: IdParams,
        answers: { 200: AdminStatus },
        refusals: ["extension_not_found"],
      }),
    )
    .post(
      "/extensions/:id/enable",
      ({ params }) => adminStatus.enable(params.id),
      controlRoute("enableExtension", "Enable a disabled extension", {
        description:
          "It gets back the status its versions imply: approved if one was ever approved, else in_review, rejected or draft.",
        params: IdParams,
        answers: { 200: AdminStatus },
        refusals: ["extension_not_found"],
      }),
    );
}
