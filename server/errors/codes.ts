/**
 * Every error code the API answers with, each with one realistic instance made by the catalog itself: the
 * status, code and message of the OpenAPI document's examples come from the same place as the server's.
 * Routes declare the codes they can return by name; the statuses follow from here.
 */

import { limitDefinition } from "../../common/limits-catalog";
import type { ApiError } from "./api-error";
import { errors } from "./catalog";

const EXT = "ext_01jd2x7k3m9q8r4t5v6w7x8y9z";
const VER = "ver_01jd2x7k3m9q8r4t5v6w7x8y9z";

export const ERROR_EXAMPLES = {
  bad_request: () => errors.badRequestTarget("the Host header is not a host name or address with an optional port"),
  unauthorized: () => errors.unauthorized("invalid"),
  forbidden: () => errors.forbidden("extensions:write"),
  malformed_path: () => errors.malformedPath("/developer/v1/extensions/%FF"),
  not_found: () => errors.notFound("GET", "/developer/v1/extension"),
  method_not_allowed: () => errors.methodNotAllowed("PUT", "/developer/v1/extensions", ["GET", "POST"]),
  extension_not_found: () => errors.extensionNotFound(EXT),
  version_not_found: () => errors.versionNotFound(VER),
  secret_not_found: () => errors.secretNotFound("API_TOKEN"),
  account_not_found: () => errors.accountNotFound("acc_demo"),
  fault_not_found: () => errors.faultNotFound("flt_01jd2x7k3m9q8r4t5v6w7x8y9z"),
  snapshot_not_found: () => errors.snapshotNotFound("snap_01jd2x7k3m9q8r4t5v6w7x8y9z"),
  api_key_not_found: () => errors.apiKeyNotFound("key_01jd2x7k3m9q8r4t5v6w7x8y9z"),
  member_not_found: () => errors.memberNotFound("mem_01jd2x7k3m9q8r4t5v6w7x8y9z"),
  request_not_found: () => errors.requestLogEntryNotFound(42),
  bundle_file_not_found: () => errors.bundleFileNotFound(VER, "sounds/ding.mp3"),
  limit_request_not_found: () => errors.limitRequestNotFound("req_01jd2x7k3m9q8r4t5v6w7x8y9z"),
  extension_listed: () => errors.extensionListed(EXT),
  version_exists: () => errors.versionExists("1.0.0"),
  version_archived: () => errors.versionArchived(VER),
  version_not_pending: () => errors.versionNotPending(VER, "approved"),
  no_current_version: () => errors.noCurrentVersion(EXT),
  version_not_installable: () => errors.versionNotInstallable(VER, "pending"),
  not_enough_installs: () => errors.notEnoughActiveInstalls(5, 2),
  member_exists: () => errors.memberExists("dev@example.com"),
  limit_request_decided: () => errors.limitRequestDecided("req_01jd2x7k3m9q8r4t5v6w7x8y9z", "approved"),
  payload_too_large: () => errors.payloadTooLarge(1_048_576),
  unsupported_media_type: () => errors.unsupportedMediaType("application/json", "text/plain"),
  validation_error: () => errors.validation([{ field: "name", message: "name: `name` is required" }]),
  limit_exceeded: () => {
    const max = limitDefinition("max_extensions_per_account").default;
    return errors.limitExceeded("max_extensions_per_account", max, max, "extensions per account");
  },
  bundle_invalid: () => errors.bundleInvalid([{ path: "manifest.json", message: "manifest.json is missing" }]),
  rate_limited: () => errors.rateLimited(42, "GET endpoints"),
  internal_error: () => errors.internal(),
  too_many_streams: () => errors.tooManyStreams(32),
  // Only ever in the request log: the client that would receive it has gone. No route documents it.
  client_closed_request: () => errors.clientClosed(),
} satisfies Record<string, () => ApiError>;

export type ErrorCode = keyof typeof ERROR_EXAMPLES;

const statuses = new Map<ErrorCode, number>();
export const statusOf = (code: ErrorCode): number => {
  let status = statuses.get(code);
  if (status === undefined) statuses.set(code, (status = ERROR_EXAMPLES[code]().status));
  return status;
};

/** What every authenticated developer route can answer, whatever it does. */
export const AUTHED_ERRORS = [
  "unauthorized",
  "forbidden",
  "rate_limited",
  "internal_error",
] as const satisfies readonly ErrorCode[];
/** What a route taking a JSON body adds: wrong Content-Type, a body over the cap, a body that fails its schema. */
export const JSON_BODY_ERRORS = [
  "unsupported_media_type",
  "payload_too_large",
  "validation_error",
] as const satisfies readonly ErrorCode[];
