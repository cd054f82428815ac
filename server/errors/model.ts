/**
 * The error envelope's schema (component `Error`) and the per-route error responses of the OpenAPI
 * document: each status lists exactly the codes a route declares, with one example per code.
 */
import type { IntegerOptions } from "@sinclair/typebox";
import { type TSchema, t } from "elysia";
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
    description: errorResponseDescription(status, codes),
    examples: codes.map((c) => ERROR_EXAMPLES[c]().toBody()),
  });
}

/** The description of a status's error response in the document: what it means, then its codes. */
export const errorResponseDescription = (status: number, codes: readonly ErrorCode[]) =>
  `${STATUS_TEXT[status] ?? "Error"}: ${codes.map((c) => `\`${c}\``).join(", ")}`;

/**
 * Where a route declares its error responses for the document: in its `detail`, which Elysia hands to the
 * generator as it is, not in its `response`, whose every schema Elysia compiles into a validator on the route's
 * first request. Errors are answered by the one `onError` as ready Responses, never checked against a route's
 * schema, so such validators would never run. server/docs/post-process.ts writes each declared status as its
 * response: the envelope with the codes for that status (errorResponseSchema), one example per code, its headers.
 */
export const ERROR_RESPONSES_KEY = "x-error-responses";

/** A route's declared errors by status: its codes, and the response headers the document gives that status. */
export type DeclaredErrors = Record<number, { codes: ErrorCode[]; headers?: Record<string, TSchema> }>;

/**
 * The `detail` entry declaring the given codes, grouped by status. `headers` gives each status its documented
 * response headers.
 */
export function errorResponses(
  codes: readonly ErrorCode[],
  headers: (status: number) => Record<string, TSchema> | undefined = () => undefined,
): { [ERROR_RESPONSES_KEY]: DeclaredErrors } {
  const byStatus: DeclaredErrors = {};
  for (const code of new Set(codes)) {
    const status = statusOf(code);
    const declared = (byStatus[status] ??= { codes: [] });
    declared.codes.push(code);
    const documented = headers(status);
    if (documented && Object.keys(documented).length > 0) declared.headers = documented;
  }
  return { [ERROR_RESPONSES_KEY]: byStatus };
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
