import { eq } from "drizzle-orm";
import { Elysia } from "elysia";
import { extensions } from "../db/schema";
import { apiAuth } from "../http/auth";
import type { Runtime } from "../runtime";
import type { Version } from "../versions/service";
import { AdminStatus, IdParams, RejectBody, ReviewedVersion, VersionIdParams } from "./model";
import { controlResponses, security, tags } from "./route-kit";

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
      response: controlResponses(
        { 200: ReviewedVersion },
        "malformed_path",
        "version_not_found",
        "version_not_pending",
        "version_archived",
      ),
      detail: {
        tags,
        security,
        operationId: "approveVersion",
        summary: "Approve a version",
        description:
          "Only a pending version can be decided (409 version_not_pending otherwise; 409 version_archived for an archived one). The version becomes approved (approvedAt set), the extension approved (unless disabled) and its currentVersionId the newest approved version.",
      },
    })
    .post(
      "/versions/:versionId/reject",
      ({ params, body }) => reviewed(versions.rejectVersion(params.versionId, body.reason)),
      {
        json: true,
        params: VersionIdParams,
        body: RejectBody,
        response: controlResponses(
          { 200: ReviewedVersion },
          "malformed_path",
          "version_not_found",
          "version_not_pending",
          "version_archived",
          "unsupported_media_type",
          "payload_too_large",
          "validation_error",
        ),
        detail: {
          tags,
          security,
          operationId: "rejectVersion",
          summary: "Reject a version with a reason",
          description:
            "Only a pending version can be decided (409 version_not_pending otherwise). The extension becomes rejected only if none of its versions was ever approved.",
        },
      },
    )
    .post("/extensions/:id/disable", ({ params }) => adminStatus.disable(params.id), {
      params: IdParams,
      response: controlResponses({ 200: AdminStatus }, "malformed_path", "extension_not_found"),
      detail: { tags, security, operationId: "disableExtension", summary: "Disable an extension (admin status)" },
    })
    .post("/extensions/:id/enable", ({ params }) => adminStatus.enable(params.id), {
      params: IdParams,
      response: controlResponses({ 200: AdminStatus }, "malformed_path", "extension_not_found"),
      detail: {
        tags,
        security,
        operationId: "enableExtension",
        summary: "Enable a disabled extension",
        description:
          "It gets back the status its versions imply: approved if one was ever approved, else in_review, rejected or draft.",
      },
    });
}
