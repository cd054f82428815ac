/**
 * Every failure the emulator reports, with its status, wire code and message, in one place.
 * Services throw `errors.x(...)`; nothing else builds an ApiError by hand.
 */
import { LOGIN_CODE_TTL_TEXT } from "../emulator/dashboard-session";
import { REQUEST_LOG_CAPACITY } from "../emulator/request-log-size";
import { ApiError, type ErrorDetail } from "./api-error";

/** How many bundle problems an error lists, and how much of an archive name it echoes. */
export const BUNDLE_DETAILS_MAX = 100;
export const NAME_ECHO_MAX = 256;
/**
 * How many problems a validation error lists. Past it the list is cut and one closing detail says so: a body
 * (or fixture) with 60,000 bad fields must not turn the error into a multi-megabyte response.
 */
export const DETAILS_MAX = 100;
export const MORE_PROBLEMS = `…and more problems: only the first ${DETAILS_MAX} are listed`;
const capDetails = (details: ErrorDetail[]) =>
  details.length <= DETAILS_MAX ? details : [...details.slice(0, DETAILS_MAX), { message: MORE_PROBLEMS }];
const andMore = (details: ErrorDetail[]) =>
  details.length > DETAILS_MAX ? " (and more)" : details.length > 1 ? ` (and ${details.length - 1} more)` : "";
/** Byte limits as people read them (MB as 1024 × 1024 bytes, as the CLI counts them); the exact count goes beside. */
const megabytes = (bytes: number) =>
  bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MB` : `${Math.round(bytes / 1024)} KB`;
const clip = (text: string, max = NAME_ECHO_MAX) => (text.length > max ? `${text.slice(0, max)}…` : text);

/**
 * Said with every 429 the emulator's own limits give, so a test suite or CI job that hits a window learns
 * the way out wherever the refusal surfaces (CLI, helpers, a plain HTTP client).
 */
export const RATE_LIMIT_HINT =
  "This emulator enforces the platform's rate limits; for tests, start it without them (`ext serve --no-rate-limits`, `ext exec --no-rate-limits` or EXT_RATE_LIMITS=false; the test helpers' startEmulator() has them off unless given rateLimits: true) or move its clock past the window (POST /_emulator/clock {\"advanceSeconds\": N}, or emulator.advanceClock(N)).";

export const errors = {
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
  extensionNotFound: (id: string) =>
    new ApiError(404, "extension_not_found", `Extension "${id}" does not exist or is not accessible to this account.`),
  versionNotFound: (id: string) => new ApiError(404, "version_not_found", `Version "${id}" does not exist.`),
  secretNotFound: (key: string) =>
    new ApiError(404, "secret_not_found", `Secret "${key}" does not exist on this extension.`),
  accountNotFound: (id: string) => new ApiError(404, "account_not_found", `Account "${id}" does not exist.`),
  extensionListed: (id: string) =>
    new ApiError(409, "extension_listed", `Extension "${id}" has been publicly listed and can no longer be deleted.`),
  versionExists: (label: string) =>
    new ApiError(409, "version_exists", `Version "${label}" already exists for this extension.`),
  versionArchived: (id: string) =>
    new ApiError(409, "version_archived", `Version "${id}" is archived and can no longer be reviewed.`),
  versionNotPending: (id: string, status: string) =>
    new ApiError(409, "version_not_pending", `Version "${id}" is ${status}; review decides only pending versions.`),
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
  /** One message for every validation failure: the first problem, and how many more `details` holds. */
  validation: (details: ErrorDetail[]) =>
    new ApiError(
      422,
      "validation_error",
      `Request failed validation: ${details[0]?.message ?? "invalid request"}${andMore(details)}`,
      capDetails(details),
    ),
  secretValueEmpty: () => errors.validation([{ field: "value", message: "value must be at least 1 byte" }]),
  secretValueNotUnicode: () =>
    errors.validation([{ field: "value", message: "value must be well-formed Unicode (it holds a lone surrogate)" }]),
  multipartEmpty: () =>
    errors.validation([{ field: "bundle", message: "bundle is required (the multipart body is empty)" }]),
  multipartMalformed: () =>
    errors.validation([{ field: "body", message: "the multipart/form-data body could not be parsed" }]),
  extensionNameInvalid: (problem: "blank" | "too_long", max: number) => {
    const what = problem === "blank" ? "name: must not be blank" : `name: at most ${max} characters after trimming`;
    return new ApiError(422, "validation_error", `Request failed validation: ${what}`, [
      { field: "name", message: what },
    ]);
  },
  malformedJson: () => new ApiError(422, "validation_error", "Request body is not valid JSON."),
  bodyNotUtf8: () =>
    errors.validation([{ field: "body", message: "body: is not valid UTF-8 (JSON text must be UTF-8)" }]),
  bodyNotObject: () => errors.validation([{ field: "body", message: "body: Expected object" }]),
  /**
   * Every problem is counted, but at most BUNDLE_DETAILS_MAX are listed and each echoed archive name is cut
   * to NAME_ECHO_MAX characters: a crafted archive (60,000 bad entries, kilobyte-long names) must not turn
   * the error into a multi-megabyte response.
   */
  bundleInvalid: (details: ErrorDetail[]) => {
    // The inspection keeps at most BUNDLE_DETAILS_MAX problems and one closing line saying it stopped: all shown.
    const listed = details.length <= BUNDLE_DETAILS_MAX + 1 ? details.length : BUNDLE_DETAILS_MAX;
    const shown = details.slice(0, listed).map((d) => ({
      ...d,
      ...(d.path !== undefined ? { path: clip(d.path) } : {}),
      message: clip(d.message, NAME_ECHO_MAX + 200),
    }));
    if (details.length > listed)
      shown.push({ path: "(archive)", message: `…and ${details.length - listed} more problems` });
    return new ApiError(
      422,
      "bundle_invalid",
      `The bundle failed inspection (${details.length} problem${details.length === 1 ? "" : "s"}).`,
      shown,
    );
  },
  bodyTooDeep: (maxDepth: number) =>
    errors.validation([{ field: "body", message: `the JSON body nests deeper than ${maxDepth} levels` }]),
  /** `context` says where the cap was checked when that is not obvious (e.g. the install-time re-check). */
  limitExceeded: (limit: string, max: number, current: number, what: string, context?: string) =>
    new ApiError(
      422,
      "limit_exceeded",
      `Limit reached: at most ${max} ${what} (currently ${current}).${context ? ` ${context}` : ""}`,
      [{ field: limit, message: `${limit} is ${max}`, limit, max, current }],
    ),
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
  // Secrets and installs. Messages never carry a secret value, only sizes and names.
  secretValueTooLarge: (bytes: number, max: number) =>
    new ApiError(
      422,
      "validation_error",
      `Request failed validation: value is ${bytes} bytes of UTF-8; at most ${max} bytes are allowed.`,
      [{ field: "value", message: `value must be at most ${max} bytes (UTF-8)` }],
    ),
  secretNameInvalid: () =>
    new ApiError(
      422,
      "validation_error",
      "Request failed validation: key must start with a letter or _, then up to 127 letters, digits or _.",
      [{ field: "key", message: "key must match ^[A-Za-z_][A-Za-z0-9_]{0,127}$" }],
    ),
  noCurrentVersion: (extensionId: string) =>
    new ApiError(
      409,
      "no_current_version",
      `Extension "${extensionId}" has no approved current version to install; name a version explicitly.`,
    ),
  versionNotInstallable: (versionId: string, status: string) =>
    new ApiError(
      409,
      "version_not_installable",
      `Version "${versionId}" is ${status}; only approved versions can be installed.`,
    ),
  installCountInvalid: (max: number) =>
    new ApiError(422, "validation_error", `Request failed validation: count must be an integer from 1 to ${max}.`, [
      { field: "count", message: `count must be an integer from 1 to ${max}` },
    ]),
  notEnoughActiveInstalls: (requested: number, active: number, action: "uninstall" | "move" = "uninstall") =>
    new ApiError(
      409,
      "not_enough_installs",
      `Cannot ${action} ${requested}: only ${active} active install${active === 1 ? "" : "s"} match.`,
    ),
  installTotalTooLarge: (max: number) =>
    new ApiError(
      422,
      "validation_error",
      `Request failed validation: an extension records at most ${max} installs in all.`,
      [{ field: "count", message: `the extension would pass ${max} installs in all` }],
    ),
  rolloutSameVersion: (versionId: string) =>
    new ApiError(
      422,
      "validation_error",
      "Request failed validation: a rollout moves installs between two different versions.",
      [{ field: "fromVersionId", message: `fromVersionId must differ from the target version "${versionId}"` }],
    ),
  internal: () => new ApiError(500, "internal_error", "Unexpected server error."),
  /** Never reaches a client (its connection is gone): it is what the request log records. */
  clientClosed: () =>
    new ApiError(
      499,
      "client_closed_request",
      "The client closed the connection before the answer; nothing was created.",
    ),
  adminUnauthorized: () =>
    new ApiError(
      401,
      "unauthorized",
      "The control plane requires Authorization: Bearer <admin token>: the one `ext serve` was given (--admin-token or EXT_ADMIN_TOKEN), else the one it generated, kept in the data directory's server.json and the ready file; the dashboard logs in through the link `ext serve` printed.",
      undefined,
      {
        "WWW-Authenticate": 'Bearer realm="emulator-admin"',
      },
    ),
  adminTokenOnApi: () =>
    new ApiError(401, "unauthorized", "The admin token opens the control plane only; use a developer API key here."),
  badRequestTarget: (why: string) =>
    new ApiError(
      400,
      "bad_request",
      `Bad request: ${why}. Send an absolute request with a Host header naming this server (host or address, optional port).`,
    ),
  dashboardLoginRefused: () =>
    new ApiError(
      401,
      "unauthorized",
      "This dashboard login link is used up or wrong: each link works once. Run `ext dashboard` in the server's folder for a new one (or POST /_emulator/dashboard-login).",
    ),
  dashboardLoginExpired: () =>
    new ApiError(
      401,
      "unauthorized",
      `This dashboard login link has expired: a link works for ${LOGIN_CODE_TTL_TEXT}, once. Run \`ext dashboard\` in the server's folder for a new one (or POST /_emulator/dashboard-login).`,
    ),
  // Control plane.
  foreignHost: (host: string) =>
    new ApiError(
      403,
      "forbidden",
      `Host "${clip(host, 100)}" is not a name this server answers to: it answers only requests addressed to localhost, 127.0.0.1 or [::1], or to a name given with --allowed-hosts (a page of another site reaching it by DNS rebinding is refused).`,
    ),
  adminCrossSite: (why: string) =>
    new ApiError(
      403,
      "forbidden",
      `The control plane refuses requests from other web pages (${why}); call it from a script with Authorization: Bearer <admin token>, or from the dashboard this server serves.`,
    ),
  adminWrongToken: () =>
    new ApiError(
      401,
      "unauthorized",
      "Wrong admin token: send the one `ext serve` was given (--admin-token or EXT_ADMIN_TOKEN), else the one it generated (in the data directory's server.json and the ready file).",
      undefined,
      {
        "WWW-Authenticate": 'Bearer realm="emulator-admin"',
      },
    ),
  adminMalformed: () =>
    new ApiError(
      401,
      "unauthorized",
      "Malformed Authorization header: the control plane expects Bearer <admin token>.",
      undefined,
      {
        "WWW-Authenticate": 'Bearer realm="emulator-admin"',
      },
    ),
  developerKeyOnControlPlane: () =>
    new ApiError(
      401,
      "unauthorized",
      "This is a developer API key: it never opens the control plane, which takes the admin token.",
      undefined,
      {
        "WWW-Authenticate": 'Bearer realm="emulator-admin"',
      },
    ),
  injectedFault: (status: number, code: string, message: string | null, ruleId: string) =>
    new ApiError(
      status,
      code,
      message ?? `Injected fault (rule ${ruleId}).`,
      undefined,
      status === 429 ? { "Retry-After": "1" } : undefined,
    ),
  faultNotFound: (id: string) => new ApiError(404, "fault_not_found", `Fault rule "${id}" does not exist.`),
  snapshotNotFound: (id: string) =>
    new ApiError(
      404,
      "snapshot_not_found",
      `Snapshot "${clip(id, 80)}" does not exist (a restart, or DELETE /_emulator/snapshots/:id, removes snapshots).`,
    ),
  snapshotsFull: (max: number) =>
    new ApiError(
      422,
      "limit_exceeded",
      `An emulator keeps at most ${max} snapshots: delete one (DELETE /_emulator/snapshots/:id) before taking another.`,
      [{ field: "snapshots", message: `snapshots is ${max}`, limit: "snapshots", max, current: max }],
    ),
  snapshotsTooLarge: (bytes: number, held: number, max: number) =>
    new ApiError(
      422,
      "limit_exceeded",
      `Snapshots keep at most ${megabytes(max)} of rows in memory together: this one (${megabytes(bytes)}) would bring them to ${megabytes(held + bytes)}. Delete one (DELETE /_emulator/snapshots/:id) before taking another.`,
      [
        {
          field: "snapshots",
          message: `snapshot rows are at most ${max} bytes together`,
          limit: "snapshot_bytes",
          max,
          current: held + bytes,
        },
      ],
    ),
  exportInvalid: (message: string) =>
    new ApiError(422, "validation_error", `Export refused, nothing was changed: ${clip(message, 1000)}`, [
      { field: "body", message: clip(message, 1000) },
    ]),
  apiKeyNotFound: (id: string) =>
    new ApiError(404, "api_key_not_found", `API key "${id}" does not exist on this account.`),
  memberNotFound: (id: string) =>
    new ApiError(404, "member_not_found", `Team member "${id}" does not exist on this account.`),
  memberExists: (email: string) =>
    new ApiError(409, "member_exists", `"${email}" is already a member of this account.`),
  tooManyStreams: (max: number) =>
    new ApiError(
      503,
      "too_many_streams",
      `${max} request-log streams are already open; close one (a dashboard tab, an \`ext logs --follow\`) and retry.`,
    ),
  requestLogEntryNotFound: (id: number) =>
    new ApiError(
      404,
      "request_not_found",
      `Request ${id} is not in the request log (it keeps the last ${REQUEST_LOG_CAPACITY} requests).`,
    ),
  bundleFileNotFound: (versionId: string, path: string) =>
    new ApiError(404, "bundle_file_not_found", `Version "${versionId}" has no file "${path}" in its bundle.`),
  bundleFileTooLarge: (path: string, max: number) =>
    new ApiError(
      413,
      "payload_too_large",
      `"${path}" is larger than ${max} bytes; the dashboard only plays files up to the sound file limit.`,
    ),
  dashboardKeyUnavailable: (accountId: string, max: number) =>
    new ApiError(
      422,
      "limit_exceeded",
      `Account "${accountId}" already has ${max} active API keys: revoke one so the dashboard can create its own "dashboard" key for this account.`,
    ),
  limitRequestNotFound: (id: string) =>
    new ApiError(404, "limit_request_not_found", `Limit request "${id}" does not exist.`),
  limitRequestDecided: (id: string, status: string) =>
    new ApiError(
      409,
      "limit_request_decided",
      `Limit request "${id}" is already ${status}; only pending requests can be decided.`,
    ),
  limitValuesInvalid: (details: ErrorDetail[]) =>
    new ApiError(
      422,
      "validation_error",
      `Request failed validation: ${details[0]?.message ?? "invalid limits"}`,
      details,
    ),
  reasonTooShort: (min: number) =>
    new ApiError(
      422,
      "validation_error",
      `Request failed validation: reason must be at least ${min} characters (not counting surrounding spaces).`,
      [{ field: "reason", message: `reason must be at least ${min} characters` }],
    ),
  limitRequestNotIncrease: (limits: { key: string; wanted: number; current: number }[]) =>
    new ApiError(
      422,
      "validation_error",
      `Request failed validation: a limit request can only raise a limit; ${limits
        .map((l) => `${l.key} is ${l.current} now, so ${l.wanted} is not an increase`)
        .join("; ")}.`,
      limits.map((l) => ({ field: `limits.${l.key}`, message: `must be above the current value ${l.current}` })),
    ),
  limitRequestTarget: (field: string, message: string) =>
    new ApiError(422, "validation_error", `Request failed validation: ${field}: ${message}`, [{ field, message }]),
  clockBodyInvalid: () =>
    new ApiError(
      422,
      "validation_error",
      "Request failed validation: send exactly one of advanceSeconds, set (with optional freeze) or mode.",
      [{ field: "body", message: "exactly one of advanceSeconds, set or mode" }],
    ),
  /** A timestamp that is not a calendar instant inside the clock's range (src/clock.ts readInstant says why). */
  instantInvalid: (field: string, problem: string) =>
    new ApiError(422, "validation_error", `Request failed validation: ${field}: ${problem}.`, [
      { field, message: problem },
    ]),
  clockOutOfRange: (field: "advanceSeconds" | "set") =>
    new ApiError(
      422,
      "validation_error",
      `Request failed validation: ${field} would move the clock outside 1970-01-01T00:00:00.000Z … 9999-12-31T23:59:59.999Z; the clock is unchanged.`,
      [{ field, message: `${field} must leave the clock between 1970-01-01 and 9999-12-31` }],
    ),
  /** Named with the first bad field; `file`: the file of an uploaded export the fixture came from. */
  fixtureInvalid: (details: ErrorDetail[], file = "Fixture") =>
    new ApiError(
      422,
      "validation_error",
      `${file} failed validation: ${details[0]?.field ? `${clip(details[0].field)}: ` : ""}${details[0]?.message ?? "invalid"}`,
      capDetails(details),
    ),
};
