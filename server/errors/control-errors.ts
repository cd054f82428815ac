/**
 * The catalogue's errors of the control plane and the dashboard (server/errors/catalog.ts): the admin token and
 * host checks, faults, snapshots, exports, accounts, the request log, limit requests, the clock and fixtures.
 */

import { REQUEST_LOG_CAPACITY } from "../../common/api-rules";
import { ApiError, type ErrorDetail } from "./api-error";
import { capDetails, clip, megabytes } from "./message-parts";

export const controlErrors = {
  adminUnauthorized: () =>
    new ApiError(
      401,
      "unauthorized",
      "The control plane requires Authorization: Bearer <admin token>: the one `ext serve` was given (--admin-token or EXT_ADMIN_TOKEN), else the one it generated, kept in the data directory's server.json and the ready file; a browser logs the dashboard in with `ext dashboard`.",
      undefined,
      {
        "WWW-Authenticate": 'Bearer realm="emulator-admin"',
      },
    ),
  foreignHost: (host: string) =>
    new ApiError(
      403,
      "forbidden",
      `Host "${clip(host, 100)}" is not a name this server answers to: it answers only requests addressed to localhost, 127.0.0.1 or [::1], or to a name given with --allowed-hosts (a page of another site reaching it by DNS rebinding is refused).`,
    ),
  oldDashboardHost: (host: string) =>
    new ApiError(
      403,
      "forbidden",
      `Host "${clip(host, 100)}" is the dashboard address of an earlier run of this server: each start serves the dashboard at a new one. Run \`ext dashboard\` to log in at the current one.`,
      undefined,
      // Whatever another program left in that origin while it held the port (a service worker) goes too.
      { "Clear-Site-Data": '"storage"' },
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
  /** A key whose hash another key row already holds (a fixture's or export's key given twice, or on two accounts). */
  apiKeyTaken: (field: "key" | "keyHash") =>
    new ApiError(
      422,
      "validation_error",
      `Request failed validation: ${field}: this key is already used by another API key.`,
      [{ field, message: "this key is already used by another API key" }],
    ),
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
  /** A timestamp that is not a calendar instant inside the clock's range (server/base/clock.ts readInstant says why). */
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
