import { Elysia } from "elysia";
import { REQUEST_LOG_CAPACITY, REQUEST_LOG_DEFAULT_LIMIT } from "../../common/api-rules";
import { errors } from "../errors/catalog";
import { apiAuth } from "../http/auth";
import { RequestLogDetail, RequestLogEntry } from "../runtime/control-state/model";
import type { Runtime } from "../runtime/runtime";
import { named, servedAs, t } from "../schema/schema";
import { MAX_QUEUED_BYTES, MAX_REQUEST_STREAMS, requestStream } from "./request-stream";
import { controlRoute, NoContent, noContent } from "./route-kit";

const RecentQuery = t.Object(
  {
    limit: t.Optional(
      t.Integer({ minimum: 1, maximum: REQUEST_LOG_CAPACITY, description: `Default ${REQUEST_LOG_DEFAULT_LIMIT}` }),
    ),
  },
  { additionalProperties: false },
);
const StreamQuery = t.Object(
  {
    recent: t.Optional(
      t.Integer({
        minimum: 0,
        maximum: REQUEST_LOG_CAPACITY,
        description: "Entries already logged to send first (oldest first); default 0",
      }),
    ),
  },
  { additionalProperties: false },
);

/** t.Integer coerces the path's text; an id that is not an integer of at least 1 is a 422. */
const EntryParams = t.Object({ id: t.Integer({ minimum: 1, description: "Entry id from the log" }) });

export function requestLogRoutes(runtime: Runtime) {
  const log = runtime.control.requestLog;
  return new Elysia({ prefix: "/requests" })
    .use(apiAuth)
    .get(
      "",
      ({ query }) => ({ requests: log.recent(query.limit ?? REQUEST_LOG_DEFAULT_LIMIT) }),
      controlRoute("listRequests", "Recent developer-API requests, newest first", {
        description: `Method, path, status, account, duration and time of the last ${REQUEST_LOG_CAPACITY} requests; the detail of each is at /requests/{id}.`,
        query: RecentQuery,
        answers: {
          200: t.Object(
            { requests: t.Array(RequestLogEntry) },
            { additionalProperties: false, ...named("RequestLogList") },
          ),
        },
      }),
    )
    .get(
      "/stream",
      ({ query, request }) => {
        // A stream waits for events: the idle limit (10 s) would cut a quiet one between its 15 s heartbeats.
        // Open streams are few (MAX_REQUEST_STREAMS), and a heartbeat finds a client that is gone.
        runtime.control.holdOpen(request);
        return requestStream(log, query.recent ?? 0);
      },
      controlRoute("streamRequests", "The request log, live (Server-Sent Events)", {
        description: `Each developer-API request as it completes: \`id:\` the entry id, \`event: request\`, \`data:\` the entry. A comment line every 15 s keeps the stream open. At most ${MAX_REQUEST_STREAMS} streams are open at once (503 \`too_many_streams\` past it); a client that leaves more than ${MAX_QUEUED_BYTES} bytes unread is dropped, after a last comment line saying so.`,
        query: StreamQuery,
        answers: {
          200: t.String({
            description: "One `request` event per logged request; its data is a RequestLogEntry as JSON",
            ...servedAs("text/event-stream"),
          }),
        },
        refusals: ["too_many_streams"],
      }),
    )
    .get(
      "/:id",
      ({ params }) => {
        const entry = log.get(params.id);
        if (!entry) throw errors.requestLogEntryNotFound(params.id);
        return entry;
      },
      controlRoute("getRequest", "One logged request with its bounded detail", {
        description: `Query string, an allowlist of request and response headers (Authorization masked to its scheme and key prefix), the body of a JSON write up to 4096 bytes (never under /secrets/), and the body of an error response. Only the last ${REQUEST_LOG_CAPACITY} requests are kept (404 once it has left the log).`,
        params: EntryParams,
        answers: { 200: RequestLogDetail },
        refusals: ["request_not_found"],
      }),
    )
    .delete(
      "",
      () => {
        log.clear();
        return noContent();
      },
      controlRoute("clearRequests", "Empty the request log", { answers: { 204: NoContent("Log emptied") } }),
    );
}
