import { Elysia, t } from "elysia";
import { apiAuth } from "../http/auth";
import type { Runtime } from "../runtime";
import { RequestLogEntry } from "./model";
import { REQUEST_LOG_CAPACITY } from "./request-log";
import { controlErrors, noContent, security, tags } from "./route-kit";

export function requestLogRoutes(runtime: Runtime) {
  const log = runtime.control.requestLog;
  return new Elysia({ prefix: "/requests" })
    .use(apiAuth)
    .get("", ({ query }) => ({ requests: log.recent(query.limit ?? 100) }), {
      query: t.Object({ limit: t.Optional(t.Integer({ minimum: 1, maximum: REQUEST_LOG_CAPACITY, description: "Default 100" })) }, { additionalProperties: false }),
      response: { 200: t.Object({ requests: t.Array(RequestLogEntry) }), ...controlErrors(422) },
      detail: {
        tags,
        security,
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
        response: { 204: t.Void({ description: "Log emptied" }), ...controlErrors() },
        detail: { tags, security, summary: "Empty the request log" },
      },
    );
}
