import { Elysia, t } from "elysia";
import { apiAuth } from "../http/auth";
import {
  ApproveLimitRequestBody,
  CreateLimitRequestBody,
  LimitRequestEnvelope,
  LimitRequestList,
  LimitRequestQuery,
  RejectLimitRequestBody,
} from "../limit-requests/model";
import type { LimitRequestService } from "../limit-requests/service";
import { IdParams } from "./model";
import { controlErrors, security, tags } from "./route-kit";

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
        response: { 201: LimitRequestEnvelope, ...controlErrors(404, 415, 422) },
        detail: {
          tags,
          security,
          summary: "Request a limit increase",
          description: "Scope account or extension; limits with desired values (known keys, within hard limits); a reason of at least 20 characters.",
        },
      },
    )
    .get("", ({ query }) => ({ limitRequests: requests.list(query) }), {
      query: LimitRequestQuery,
      response: { 200: LimitRequestList, ...controlErrors(422) },
      detail: { tags, security, summary: "List limit requests with their status (the Requests tab)", description: "Oldest first; filter by accountId and status." },
    })
    .get("/:id", ({ params }) => ({ limitRequest: requests.get(params.id) }), {
      params: IdParams,
      response: { 200: LimitRequestEnvelope, ...controlErrors(404) },
      detail: { tags, security, summary: "One limit request" },
    })
    .post("/:id/approve", ({ params, body }) => ({ limitRequest: requests.approve(params.id, body?.reason) }), {
      params: IdParams,
      json: true,
      body: t.Optional(ApproveLimitRequestBody),
      response: { 200: LimitRequestEnvelope, ...controlErrors(404, 409, 422) },
      detail: { tags, security, summary: "Approve: the overrides apply at once", description: "Only a pending request can be decided (409 otherwise)." },
    })
    .post("/:id/reject", ({ params, body }) => ({ limitRequest: requests.reject(params.id, body.reason) }), {
      json: true,
      params: IdParams,
      body: RejectLimitRequestBody,
      response: { 200: LimitRequestEnvelope, ...controlErrors(404, 409, 415, 422) },
      detail: { tags, security, summary: "Reject with a reason" },
    });
}
