import { Elysia, t } from "elysia";
import { apiAuth } from "../http/auth";
import type { Runtime } from "../runtime";
import { RequestLogEntry } from "./model";
import { REQUEST_LOG_CAPACITY } from "./request-log";
import { controlResponses, noContent, NoContent, security, tags } from "./route-kit";

export function requestLogRoutes(runtime: Runtime) {
  const log = runtime.control.requestLog;
  return new Elysia({ prefix: "/requests" })
    .use(apiAuth)
    .get("", ({ query }) => ({ requests: log.recent(query.limit ?? 100) }), {
      query: t.Object({ limit: t.Optional(t.Integer({ minimum: 1, maximum: REQUEST_LOG_CAPACITY, description: "Default 100" })) }, { additionalProperties: false }),
      response: controlResponses({ 200: t.Object({ requests: t.Array(RequestLogEntry) }) }, "validation_error"),
      detail: {
        tags,
        security,
        operationId: "listRequests",
        summary: "Recent developer-API requests, newest first",
        description: `Method, path, status, account, duration and time of the last ${REQUEST_LOG_CAPACITY} requests. Never bodies or headers.`,
      },
    })
    .delete(
      "",
      () => {
        log.clear();
        return noContent();
      },
      {
        response: controlResponses({ 204: NoContent("Log emptied") }),
        detail: { tags, security, operationId: "clearRequests", summary: "Empty the request log" },
      },
    );
}
