import { eq } from "drizzle-orm";
import { Elysia } from "elysia";
import { extensions } from "../db/schema";
import { apiAuth } from "../http/auth";
import type { Runtime } from "../runtime";
import type { Version } from "../versions/service";
import { AdminStatus, IdParams, RejectBody, ReviewedVersion, VersionIdParams } from "./model";
import { controlErrors, security, tags } from "./route-kit";

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
    .post("/versions/:versionId/approve", ({ params }) => reviewed(versions.approveVersion(params.versionId)), {
      params: VersionIdParams,
      response: { 200: ReviewedVersion, ...controlErrors(404, 409) },
      detail: {
        tags,
        security,
        summary: "Approve a version",
        description: "Only a pending version can be decided (409 version_not_pending otherwise; 409 version_archived for an archived one). The version becomes approved (approvedAt set), the extension approved (unless disabled) and its currentVersionId the newest approved version.",
      },
    })
    .post("/versions/:versionId/reject", ({ params, body }) => reviewed(versions.rejectVersion(params.versionId, body.reason)), {
      json: true,
      params: VersionIdParams,
      body: RejectBody,
      response: { 200: ReviewedVersion, ...controlErrors(404, 409, 415, 422) },
      detail: {
        tags,
        security,
        summary: "Reject a version with a reason",
        description: "Only a pending version can be decided (409 version_not_pending otherwise). The extension becomes rejected only if none of its versions was ever approved.",
      },
    })
    .post("/extensions/:id/disable", ({ params }) => adminStatus.disable(params.id), {
      params: IdParams,
      response: { 200: AdminStatus, ...controlErrors(404) },
      detail: { tags, security, summary: "Disable an extension (admin status)" },
    })
    .post("/extensions/:id/enable", ({ params }) => adminStatus.enable(params.id), {
      params: IdParams,
      response: { 200: AdminStatus, ...controlErrors(404) },
      detail: {
        tags,
        security,
        summary: "Enable a disabled extension",
        description: "It gets back the status its versions imply: approved if one was ever approved, else in_review, rejected or draft.",
      },
    });
}
