import { Elysia } from "elysia";
import { apiAuth } from "../http/auth";
import {
  ApproveLimitRequestBody,
  CreateLimitRequestBody,
  LimitRequestEnvelope,
  LimitRequestList,
  LimitRequestQuery,
  REASON_MIN,
  RejectLimitRequestBody,
} from "../limit-requests/model";
import type { LimitRequestService } from "../limit-requests/service";
import { IdParams } from "./model";
import { controlResponses, security, tags } from "./route-kit";

/** Spec §8 "Requesting an increase": the developer's request and the admin's decision. */
export function limitRequestRoutes(requests: LimitRequestService) {
  return new Elysia({ prefix: "/limit-requests" })
    .use(apiAuth)
    .post(
      "",
      ({ body, set }) => {
        set.status = 201;
        return { limitRequest: requests.create(body) };
      },
      {
        json: true,
        body: CreateLimitRequestBody,
        response: controlResponses(
          { 201: LimitRequestEnvelope },
          "account_not_found",
          "extension_not_found",
          "unsupported_media_type",
          "payload_too_large",
          "validation_error",
        ),
        detail: {
          tags,
          security,
          operationId: "createLimitRequest",
          summary: "Request a limit increase",
          description: `Scope account or extension; limits with desired values (known keys, within hard limits); a reason of at least ${REASON_MIN} characters.`,
        },
      },
    )
    .get("", ({ query }) => ({ limitRequests: requests.list(query) }), {
      query: LimitRequestQuery,
      response: controlResponses({ 200: LimitRequestList }, "validation_error"),
      detail: {
        tags,
        security,
        operationId: "listLimitRequests",
        summary: "List limit requests with their status (the Requests tab)",
        description: "Oldest first; filter by accountId and status.",
      },
    })
    .get("/:id", ({ params }) => ({ limitRequest: requests.get(params.id) }), {
      params: IdParams,
      response: controlResponses({ 200: LimitRequestEnvelope }, "malformed_path", "limit_request_not_found"),
      detail: { tags, security, operationId: "getLimitRequest", summary: "One limit request" },
    })
    .post("/:id/approve", ({ params, body }) => ({ limitRequest: requests.approve(params.id, body.reason) }), {
      params: IdParams,
      json: true,
      body: ApproveLimitRequestBody,
      response: controlResponses(
        { 200: LimitRequestEnvelope },
        "malformed_path",
        "limit_request_not_found",
        "limit_request_decided",
        "unsupported_media_type",
        "payload_too_large",
        "validation_error",
      ),
      detail: {
        tags,
        security,
        operationId: "approveLimitRequest",
        summary: "Approve: the overrides apply at once",
        description: "Only a pending request can be decided (409 otherwise).",
      },
    })
    .post("/:id/reject", ({ params, body }) => ({ limitRequest: requests.reject(params.id, body.reason) }), {
      json: true,
      params: IdParams,
      body: RejectLimitRequestBody,
      response: controlResponses(
        { 200: LimitRequestEnvelope },
        "malformed_path",
        "limit_request_not_found",
        "limit_request_decided",
        "unsupported_media_type",
        "payload_too_large",
        "validation_error",
      ),
      detail: { tags, security, operationId: "rejectLimitRequest", summary: "Reject with a reason" },
    });
}
