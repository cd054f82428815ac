/**
 * The catalogue's errors of a request as such (server/errors/catalog.ts): who calls, which route, the body's
 * size, type and shape, rate limits, and the server's own failures.
 */
import { ApiError } from "./api-error";
import { megabytes, validationError } from "./message-parts";

/**
 * Said with every 429 the emulator's own limits give, so a test suite or CI job that hits a window learns
 * the way out wherever the refusal surfaces (CLI, helpers, a plain HTTP client).
 */
export const RATE_LIMIT_HINT =
  "This emulator enforces the platform's rate limits; for tests, start it without them (`ext serve --no-rate-limits`, `ext exec --no-rate-limits` or EXT_RATE_LIMITS=false; the test helpers' startEmulator() has them off unless given rateLimits: true) or move its clock past the window (POST /_emulator/clock {\"advanceSeconds\": N}, or emulator.advanceClock(N)).";

export const requestErrors = {
  unauthorized: (why: "missing" | "malformed" | "invalid") =>
    new ApiError(
      401,
      "unauthorized",
      {
        missing: "Missing API key: send the header Authorization: Bearer <DEVELOPER_API_KEY>.",
        malformed: "Malformed Authorization header: expected Bearer <DEVELOPER_API_KEY>.",
        invalid: "Invalid API key: it does not exist or has been revoked.",
      }[why],
      undefined,
      { "WWW-Authenticate": 'Bearer realm="developer-api"' },
    ),
  forbidden: (scope: string) =>
    new ApiError(403, "forbidden", `This API key lacks the scope "${scope}" required by this endpoint.`),
  malformedPath: (path: string) =>
    new ApiError(
      400,
      "malformed_path",
      `The path ${path} is malformed: a % must start an escape of two hex digits, and the escapes must decode to UTF-8.`,
    ),
  notFound: (method: string, path: string) => new ApiError(404, "not_found", `No route for ${method} ${path}.`),
  methodNotAllowed: (method: string, path: string, allowed: string[]) =>
    new ApiError(
      405,
      "method_not_allowed",
      `${method} is not allowed on ${path}; allowed: ${allowed.join(", ")}.`,
      undefined,
      {
        Allow: allowed.join(", "),
      },
    ),
  /** A JSON body over its cap (the developer API and the control plane take small bodies only). */
  payloadTooLarge: (maxBytes: number) =>
    new ApiError(
      413,
      "payload_too_large",
      `Request body exceeds the limit of ${megabytes(maxBytes)} (${maxBytes} bytes) for a JSON request body.`,
    ),
  /** A version submission over its cap: the bundle limit, which it names, plus room for the form's fields. */
  uploadTooLarge: (maxBytes: number, bundleBytes: number) =>
    new ApiError(
      413,
      "payload_too_large",
      `Request body exceeds the limit of ${megabytes(maxBytes)} (${maxBytes} bytes) for a version upload: the bundle_total_bytes limit of ${megabytes(bundleBytes)} plus ${megabytes(maxBytes - bundleBytes)} for the form's other fields.`,
    ),
  unsupportedMediaType: (expected: string, got: string | null) =>
    new ApiError(415, "unsupported_media_type", `Expected Content-Type ${expected}${got ? `, got ${got}` : ""}.`),
  validation: validationError,
  multipartEmpty: () =>
    validationError([{ field: "bundle", message: "bundle is required (the multipart body is empty)" }]),
  multipartMalformed: () =>
    validationError([{ field: "body", message: "the multipart/form-data body could not be parsed" }]),
  malformedJson: () => new ApiError(422, "validation_error", "Request body is not valid JSON."),
  bodyNotUtf8: () =>
    validationError([{ field: "body", message: "body: is not valid UTF-8 (JSON text must be UTF-8)" }]),
  bodyNotObject: () => validationError([{ field: "body", message: "body: Expected object" }]),
  bodyTooDeep: (maxDepth: number) =>
    validationError([{ field: "body", message: `the JSON body nests deeper than ${maxDepth} levels` }]),
  rateLimited: (retryAfterSeconds: number, group: string) =>
    new ApiError(
      429,
      "rate_limited",
      `Too many requests for ${group}; retry after ${retryAfterSeconds} s. ${RATE_LIMIT_HINT}`,
      undefined,
      {
        "Retry-After": String(retryAfterSeconds),
      },
    ),
  internal: () => new ApiError(500, "internal_error", "Unexpected server error."),
  /** Never reaches a client (its connection is gone): it is what the request log records. */
  clientClosed: () =>
    new ApiError(
      499,
      "client_closed_request",
      "The client closed the connection before the answer; nothing was created.",
    ),
  adminTokenOnApi: () =>
    new ApiError(401, "unauthorized", "The admin token opens the control plane only; use a developer API key here."),
  badRequestTarget: (why: string) =>
    new ApiError(
      400,
      "bad_request",
      `Bad request: ${why}. Send an absolute request with a Host header naming this server (host or address, optional port).`,
    ),
};
