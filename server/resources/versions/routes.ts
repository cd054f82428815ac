import { API_PREFIX } from "../../../common/addresses";
import type { BlobStore } from "../../blobs/blob-store";
import { errors } from "../../errors/catalog";
import type { ApiApp } from "../../http/auth";
import { temporaryOf } from "../../http/request-context";
import { apiRead, apiRoute } from "../../http/route-kit";
import { ExtensionIdParams } from "../extensions/model";
import { SubmitVersionForm, VersionList, VersionListQuery, VersionSubmitted } from "./model";
import type { VersionService } from "./service";

const tag = "Versions";

export function versionRoutes(versions: () => VersionService, blobs: BlobStore) {
  const path = `${API_PREFIX}/extensions/:id/versions`;
  return (app: ApiApp) =>
    app
      .get(
        path,
        ({ principal, params, query }) => ({
          versions: versions().list(principal.accountId, params.id, query.include === "archived"),
        }),
        apiRead(tag, "listVersions", "List an extension's versions", {
          auth: "extensions:read",
          description: "Newest first. Archived versions only with ?include=archived.",
          params: ExtensionIdParams,
          query: VersionListQuery,
          answers: { 200: VersionList },
          refusals: ["extension_not_found"],
        }),
      )
      .post(
        path,
        async ({ principal, params, request, set }) => {
          // Which extension, how big a body it may take and what its bundle is checked against are known
          // before a byte of the body is read: a refusal here (404, 415, 413 by Content-Length) leaves the body
          // unread, to be dropped by the answer step (server/http/request-context.ts) while the answer goes out.
          const limits = versions().bundleLimits(principal.accountId, params.id);
          // Loaded on the first submission: the streaming parser and the inspector are not part of a cold start.
          const { FORM_OVERHEAD_BYTES, precheckUpload, receiveUpload } = await import("./upload");
          const upload = {
            contentType: request.headers.get("content-type"),
            contentLength: request.headers.get("content-length"),
            body: request.body,
            maxBytes: limits.bundle_total_bytes + FORM_OVERHEAD_BYTES,
            limits,
            // The request owns the file: removed before the answer, whatever it is (a success has moved it).
            tempPath: () => temporaryOf(request, blobs.tempPath("upload")),
          };
          precheckUpload(upload);
          // Once reading has begun, a refusal can leave part of the body unread, and such a connection cannot
          // carry another request (Bun's graceful stop would even wait for it forever): every error answer from
          // here on closes it. Set first, so the error response carries it too; a success keeps the connection.
          set.headers.connection = "close";
          const received = await receiveUpload(upload);
          // Bun closes a connection as soon as the client half-closes it (sends FIN): nothing can be answered
          // on it any more. A version its client will never hear of would turn the client's retry into a
          // 409, so it is not created. Checked last: from here to the answer nothing yields to the event loop.
          if (request.signal.aborted) throw errors.clientClosed();
          const result = versions().submit(principal.accountId, params.id, received);
          delete set.headers.connection;
          set.status = 202;
          return result;
        },
        apiRoute(tag, "submitVersion", "Submit a version (multipart: version, changelog, bundle)", {
          auth: "versions:write",
          description:
            "The bundle (.tar.gz) streams to disk and is inspected before the answer: any problem is a 422 bundle_invalid listing every one, by path. A body over the bundle total (+ form overhead) is a 413; a body that is not multipart is a 415. A refusal decided before the body is read (401, 403, 404, 415, 429, a 413 by Content-Length) is answered at once while the body is read and dropped, up to 4 MiB (a body announced past it closes the connection); an error answer once reading has begun (413, 409, 422, 500) closes the connection (Connection: close): the body may be unread in part.",
          params: ExtensionIdParams,
          // Streamed to disk by receiveUpload: the framework must not buffer it with formData().
          ownBody: { mediaType: "multipart/form-data", schema: SubmitVersionForm },
          answers: { 202: VersionSubmitted },
          refusals: [
            "extension_not_found",
            "version_exists",
            "payload_too_large",
            "unsupported_media_type",
            "validation_error",
            "bundle_invalid",
          ],
        }),
      );
}
