import { t } from "elysia";

export const ErrorDetail = t.Object(
  {
    field: t.Optional(t.String()),
    path: t.Optional(t.String()),
    message: t.String(),
  },
  { additionalProperties: true, description: "One problem: the field or archive path it concerns, and what is wrong." },
);

/** The envelope, with the wire code and status a client sees for `status` as the document's examples. */
function envelope(status: number, code: string, description: string) {
  return t.Object(
    {
      error: t.Object({
        code: t.String({ examples: [code] }),
        message: t.String(),
        status: t.Integer({ description: "Equal to the HTTP status", examples: [status] }),
        details: t.Optional(t.Array(ErrorDetail)),
      }),
    },
    { title: "Error", description },
  );
}

export const ErrorEnvelope = envelope(422, "validation_error", "The single error envelope used by every non-success response.");

/** The usual code of each status, shown as the example (the descriptions list the others). */
const EXAMPLE_CODES: Record<number, string> = {
  400: "bad_request",
  401: "unauthorized",
  403: "forbidden",
  404: "extension_not_found",
  405: "method_not_allowed",
  409: "extension_listed",
  413: "payload_too_large",
  415: "unsupported_media_type",
  422: "validation_error",
  429: "rate_limited",
  500: "internal_error",
};

const DESCRIPTIONS: Record<number, string> = {
  400: "Bad request",
  401: "Missing, malformed, unknown or revoked API key (`unauthorized`)",
  403: "Valid key without the required scope (`forbidden`)",
  404: "Resource not found (`extension_not_found`, `version_not_found`, `secret_not_found`, `not_found`)",
  405: "Known path, wrong method (`method_not_allowed`)",
  409: "Conflict with the current state",
  413: "Request body too large (`payload_too_large`)",
  415: "Wrong Content-Type (`unsupported_media_type`)",
  422: "Validation failed (`validation_error`, `limit_exceeded`, `bundle_invalid`)",
  429: "Rate limit window full (`rate_limited`); see Retry-After",
  500: "Unexpected server error (`internal_error`)",
};

/** Response schemas for the error statuses a route can return, for the OpenAPI document. */
export function errorResponses<S extends number>(...statuses: S[]): Record<S, typeof ErrorEnvelope> {
  const out = {} as Record<S, typeof ErrorEnvelope>;
  for (const s of statuses) out[s] = envelope(s, EXAMPLE_CODES[s] ?? "error", DESCRIPTIONS[s] ?? "Error") as any;
  return out;
}

/** Statuses every authenticated developer route can answer with. */
export const AUTHED = [401, 403, 429, 500] as const;
