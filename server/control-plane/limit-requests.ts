import { Elysia } from "elysia";
import { REASON_MIN } from "../../common/api-rules";
import { apiAuth } from "../http/auth";
import {
  ApproveLimitRequestBody,
  CreateLimitRequestBody,
  LimitRequestEnvelope,
  LimitRequestList,
  LimitRequestQuery,
  RejectLimitRequestBody,
} from "../resources/limit-requests/model";
import type { LimitRequestService } from "../resources/limit-requests/service";
import { IdParams } from "../runtime/control-state/model";
import { controlRoute } from "./route-kit";

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
      controlRoute("createLimitRequest", "Request a limit increase", {
        description: `Scope account or extension; limits with desired values (known keys, within hard limits); a reason of at least ${REASON_MIN} characters.`,
        body: CreateLimitRequestBody,
        answers: { 201: LimitRequestEnvelope },
        refusals: ["account_not_found", "extension_not_found"],
      }),
    )
    .get(
      "",
      ({ query }) => ({ limitRequests: requests.list(query) }),
      controlRoute("listLimitRequests", "List limit requests with their status (the Admin page's Limit requests)", {
        description: "Oldest first; filter by accountId and status.",
        query: LimitRequestQuery,
        answers: { 200: LimitRequestList },
      }),
    )
    .get(
      "/:id",
      ({ params }) => ({ limitRequest: requests.get(params.id) }),
      controlRoute("getLimitRequest", "One limit request", {
        params: IdParams,
        answers: { 200: LimitRequestEnvelope },
        refusals: ["limit_request_not_found"],
      }),
    )
    .post(
      "/:id/approve",
      ({ params, body }) => ({ limitRequest: requests.approve(params.id, body.reason) }),
      controlRoute("approveLimitRequest", "Approve: the overrides apply at once", {
        description: "Only a pending request can be decided (409 otherwise).",
        params: IdParams,
        body: ApproveLimitRequestBody,
        answers: { 200: LimitRequestEnvelope },
        refusals: ["limit_request_not_found", "limit_request_decided"],
      }),
    )
    .post(
      "/:id/reject",
      ({ params, body }) => ({ limitRequest: requests.reject(params.id, body.reason) }),
      controlRoute("rejectLimitRequest", "Reject with a reason", {
        params: IdParams,
        body: RejectLimitRequestBody,
        answers: { 200: LimitRequestEnvelope },
        refusals: ["limit_request_not_found", "limit_request_decided"],
      }),
    );
}
