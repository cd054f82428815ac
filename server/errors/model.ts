/**
 * The error envelope's schema (component `Error`) and the per-route error responses of the OpenAPI
 * document: each status lists exactly the codes a route declares, with one example per code.
 */
import type { IntegerOptions, TUnsafe } from "@sinclair/typebox";
import { type Static, type TSchema, t } from "elysia";
import { integer, named } from "../schema/schema";
import { ERROR_EXAMPLES, type ErrorCode, statusOf } from "./codes";

export const ErrorDetail = t.Object(
  {
    field: t.Optional(t.String()),
    path: t.Optional(t.String()),
    message: t.String(),
  },
  {
    additionalProperties: true,
    description: "One problem: the field or archive path it concerns, and what is wrong.",
    ...named("ErrorDetail"),
  },
);

export const ErrorEnvelope = t.Object(
  {
    error: t.Object(
      {
        code: t.String({ description: "Stable machine-readable code; each operation lists the ones it can return" }),
        message: t.String({ description: "For people; may change" }),
        status: integer({ minimum: 400, maximum: 599, description: "Equal to the HTTP status" }),
        details: t.Optional(t.Array(ErrorDetail)),
      },
      { additionalProperties: false },
    ),
  },
  {
    additionalProperties: false,
    description: "The single error envelope used by every non-success response.",
    ...named("Error"),
  },
);

const STATUS_TEXT: Record<number, string> = {
  400: "Bad request",
  401: "Missing, malformed, unknown or revoked credentials",
  403: "Not allowed",
  404: "Not found",
  405: "Known path, wrong method",
  409: "Conflict with the current state",
  413: "Request body too large",
  415: "Wrong Content-Type",
  422: "Validation failed",
  429: "Rate limit window full; see Retry-After",
  500: "Unexpected server error",
};

export type ErrorStatus = 400 | 401 | 403 | 404 | 405 | 409 | 413 | 415 | 422 | 429 | 500;

/** The full schema of one status's error response: the envelope, `code` narrowed to `codes`, one example per code. */
export function errorResponseSchema(status: number, codes: readonly ErrorCode[]) {
  const code = t.UnionEnum(codes as [ErrorCode, ...ErrorCode[]]);
  // t.UnionEnum defaults to its first value; a response code has no default.
  delete (code as { default?: unknown }).default;
  // Open objects: this part only narrows two fields of the envelope, which closes the object itself.
  const narrowing = t.Object(
    { error: t.Object({ code, status: integer({ const: status } as IntegerOptions) }, { additionalProperties: true }) },
    { additionalProperties: true },
  );
  return t.Intersect([ErrorEnvelope, narrowing], {
    description: responseDescription(status, codes),
    examples: codes.map((c) => ERROR_EXAMPLES[c]().toBody()),
  });
}

const responseDescription = (status: number, codes: readonly ErrorCode[]) =>
  `${STATUS_TEXT[status] ?? "Error"}: ${codes.map((c) => `\`${c}\``).join(", ")}`;

/**
 * Where a route's error response names its status and codes for the document. Errors are answered by the
 * one `onError` as ready Responses, never validated against a route's schema, so a route carries only this
 * marker; server/docs/post-process.ts puts `errorResponseSchema(status, codes)` in its place when the document
 * is made. Building and registering the full schemas for every route would weigh on every cold start.
 */
export const ERROR_RESPONSE_KEY = "x-error-response";

function errorResponse(status: number, codes: ErrorCode[]) {
  // Any: the one schema every validator compiles to "accept", so Elysia's per-route setup has nothing to do.
  return t.Any({
    description: responseDescription(status, codes),
    [ERROR_RESPONSE_KEY]: { status, codes },
  }) as unknown as TUnsafe<Static<typeof ErrorEnvelope>>;
}
export type ErrorResponseSchema = ReturnType<typeof errorResponse>;

/**
 * Response schemas for the given codes, grouped by status. `headers` gives each status its documented
 * response headers (read by @elysiajs/openapi from a response schema's `headers`).
 */
export function errorResponses(
  codes: readonly ErrorCode[],
  headers: (status: number) => Record<string, TSchema> | undefined = () => undefined,
) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const c of new Set(codes)) byStatus.set(statusOf(c), [...(byStatus.get(statusOf(c)) ?? []), c]);
  // Typed as every status so Elysia sees a plain status → schema map; only the declared ones exist.
  const out = {} as Record<ErrorStatus, ErrorResponseSchema>;
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    out[status as ErrorStatus] = withResponseHeaders(errorResponse(status, list), headers(status));
  }
  return out;
}

/**
 * A copy of `schema` carrying response headers for the document, as @elysiajs/openapi's `withHeaders`
 * does (not imported: that module stays off the start-up path, see server/docs/openapi.ts).
 */
export function withResponseHeaders<S extends TSchema>(schema: S, headers: Record<string, TSchema> | undefined): S {
  if (!headers || Object.keys(headers).length === 0) return schema;
  const copy = Object.create(Object.getPrototypeOf(schema), Object.getOwnPropertyDescriptors(schema)) as S;
  Object.defineProperty(copy, "headers", { value: headers, enumerable: true, configurable: true, writable: true });
  return copy;
}
