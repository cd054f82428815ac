/** Response helpers shared by the developer routes: the 204, and the documented responses of a route. */
import type { TUnion, TUnsafe } from "@sinclair/typebox";
import type { TSchema } from "elysia";
import { AUTHED_ERRORS, type ErrorCode } from "../errors/codes";
import { errorResponses, withResponseHeaders } from "../errors/model";
import { integer, requiredHeader, t } from "../schema/schema";
import { answerHeadersTemplate } from "./answer-headers";
import { madeAnswer, type SerializedJson } from "./request-context";

const SECURE = answerHeadersTemplate();

/**
 * A 204 with no body at all, and the headers the request's answers carry (the rate window's, given `request`).
 * Built as a bare Response on purpose: Elysia's string form `status("No Content")` still sends a body (elysia
 * PR #1833).
 */
export const noContent = (request?: Request) =>
  request ? madeAnswer(request, null, SECURE, 204) : new Response(null, { status: 204, headers: SECURE });

/** The schema of a 204 (the document's post-processing drops the content map the generator gives it). */
export const NoContent = (description: string) => t.Void({ description });

/** Sent on every authenticated developer-API response while rate limits are on (`--no-rate-limit` drops them). */
export const RATE_LIMIT_HEADERS = {
  "X-RateLimit-Limit": integer({ minimum: 1, description: "Requests allowed per window in this route's group" }),
  "X-RateLimit-Remaining": integer({ minimum: 0, description: "Requests left in the current window" }),
  "X-RateLimit-Reset": integer({ minimum: 0, description: "When the window closes, in Unix seconds" }),
};
export const RETRY_AFTER_HEADER = {
  "Retry-After": integer({ minimum: 1, description: "Seconds until the window closes", ...requiredHeader() }),
};
export const WWW_AUTHENTICATE_HEADER = {
  "WWW-Authenticate": t.String({ description: "The authentication scheme to use: Bearer" }),
};

/** A 401 comes before the rate window is taken; every later answer carries the window's headers. */
function developerHeaders(status: number): Record<string, TSchema> {
  if (status === 401) return WWW_AUTHENTICATE_HEADER;
  if (status === 429) return { ...RETRY_AFTER_HEADER, ...RATE_LIMIT_HEADERS };
  return RATE_LIMIT_HEADERS;
}

/**
 * Where a route declares its ready answers, in its `detail`: by status, the `$id` of the named model the answer's
 * body is, and its headers.
 */
export const READY_ANSWERS_KEY = "x-ready-answers";
export type ReadyAnswers = Record<number, { model: string; headers?: Record<string, TSchema> }>;

const READY_ANSWER = Symbol("ready answer");
interface ReadyAnswer {
  /** The model's `$id`: where the document has it. */
  [READY_ANSWER]: string;
}

/**
 * The success of a route that answers a body it already holds serialized (SerializedJson,
 * server/http/request-context.ts), declared for the document only: a schema in the route's `response` would be
 * compiled, by its first request, into a validator that must not check the serialized body (for the list, the
 * first validator a start compiles: a fifth of its first answer). The route kit puts it in the route's `detail`
 * (READY_ANSWERS_KEY) instead, as a reference to its named model, which the document's app registers
 * (`READY_ANSWER_MODELS`, server/start/app.ts); the document's post-processing writes the response. Typed as the
 * model or the serialized body the route answers it with.
 */
export function readyAnswer<S extends TSchema>(model: S): ReadyAnswerOf<S> {
  if (typeof model.$id !== "string") throw new Error("readyAnswer: the model must be named (named(...))");
  return { [READY_ANSWER]: model.$id } satisfies ReadyAnswer as unknown as ReadyAnswerOf<S>;
}

/** What a ready answer's route may return, to Elysia's types: its model, or the body serialized already. */
type ReadyAnswerOf<S extends TSchema> = TUnion<[S, TUnsafe<SerializedJson>]>;

/**
 * A developer route's successes: those Elysia checks, as its `response`, each with the rate window's headers; and
 * its ready answers (readyAnswer), for its `detail` only.
 */
export function apiResponses<S extends Record<number, TSchema>>(success: S) {
  const response: Record<number, TSchema> = {};
  const ready: ReadyAnswers = {};
  for (const [status, schema] of Object.entries(success) as [string, TSchema | ReadyAnswer][]) {
    if (READY_ANSWER in schema) ready[Number(status)] = { model: schema[READY_ANSWER], headers: RATE_LIMIT_HEADERS };
    else response[Number(status)] = withResponseHeaders(schema, RATE_LIMIT_HEADERS);
  }
  return { response: response as S, detail: Object.keys(ready).length > 0 ? { [READY_ANSWERS_KEY]: ready } : {} };
}

/**
 * The errors a developer route declares (for its `detail`, see errorResponses): `codes`, plus what every
 * authenticated route can answer, with their headers.
 */
export const apiErrors = (codes: readonly ErrorCode[]) =>
  errorResponses([...AUTHED_ERRORS, ...codes], developerHeaders);
