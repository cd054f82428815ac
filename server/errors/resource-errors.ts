/**
 * The catalogue's errors of the developer API's resources (server/errors/catalog.ts): extensions, versions and
 * their bundles, secrets, installs and the limits they count against. Messages never carry a secret value,
 * only sizes and names.
 */
import { ApiError, type ErrorDetail } from "./api-error";
import { BUNDLE_DETAILS_MAX, clip, NAME_ECHO_MAX, validationError } from "./message-parts";

export const resourceErrors = {
  extensionNotFound: (id: string) =>
    new ApiError(404, "extension_not_found", `Extension "${id}" does not exist or is not accessible to this account.`),
  versionNotFound: (id: string) => new ApiError(404, "version_not_found", `Version "${id}" does not exist.`),
  secretNotFound: (key: string) =>
    new ApiError(404, "secret_not_found", `Secret "${key}" does not exist on this extension.`),
  accountNotFound: (id: string) => new ApiError(404, "account_not_found", `Account "${id}" does not exist.`),
  /** An export's slug that another extension already has (slugs are unique across all accounts). */
  slugTaken: (slug: string, ownerId: string) =>
    new ApiError(
      422,
      "validation_error",
      `Request failed validation: slug: "${slug}" is already the slug of extension ${ownerId}.`,
      [{ field: "slug", message: `"${slug}" is already the slug of extension ${ownerId}` }],
    ),
  extensionListed: (id: string) =>
    new ApiError(409, "extension_listed", `Extension "${id}" has been publicly listed and can no longer be deleted.`),
  versionExists: (label: string) =>
    new ApiError(409, "version_exists", `Version "${label}" already exists for this extension.`),
  /** An id a fixture or an export gives that a row of another account or extension already has. */
  idTaken: (id: string, holder: string) =>
    new ApiError(422, "validation_error", `Request failed validation: id: "${id}" is already the id of ${holder}.`, [
      { field: "id", message: `"${id}" is already the id of ${holder}` },
    ]),
  versionArchived: (id: string) =>
    new ApiError(409, "version_archived", `Version "${id}" is archived and can no longer be reviewed.`),
  versionNotPending: (id: string, status: string) =>
    new ApiError(409, "version_not_pending", `Version "${id}" is ${status}; review decides only pending versions.`),
  secretValueEmpty: () => validationError([{ field: "value", message: "value must be at least 1 byte" }]),
  secretValueNotUnicode: () =>
    validationError([{ field: "value", message: "value must be well-formed Unicode (it holds a lone surrogate)" }]),
  extensionNameInvalid: (problem: "blank" | "too_long", max: number) => {
    const what = problem === "blank" ? "name: must not be blank" : `name: at most ${max} characters after trimming`;
    return new ApiError(422, "validation_error", `Request failed validation: ${what}`, [
      { field: "name", message: what },
    ]);
  },
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
  /** `context` says where the cap was checked when that is not obvious (e.g. the install-time re-check). */
  limitExceeded: (limit: string, max: number, current: number, what: string, context?: string) =>
    new ApiError(
      422,
      "limit_exceeded",
      `Limit reached: at most ${max} ${what} (currently ${current}).${context ? ` ${context}` : ""}`,
      [{ field: limit, message: `${limit} is ${max}`, limit, max, current }],
    ),
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
  /** `field`: what would carry the total past the cap (a call's count; a fixture's installs). */
  installTotalTooLarge: (max: number, field = "count") =>
    new ApiError(
      422,
      "validation_error",
      `Request failed validation: an extension records at most ${max} installs in all.`,
      [{ field, message: `the extension would pass ${max} installs in all` }],
    ),
  /** Counters (a fixture's, an export's) with more installs active than ever recorded. */
  activeAboveInstalled: (active: number, installed: number, field: string) =>
    new ApiError(
      422,
      "validation_error",
      `Request failed validation: ${field}: ${active} installs active is more than the ${installed} ever recorded.`,
      [{ field, message: `${active} installs active is more than the ${installed} ever recorded` }],
    ),
  rolloutSameVersion: (versionId: string) =>
    new ApiError(
      422,
      "validation_error",
      "Request failed validation: a rollout moves installs between two different versions.",
      [{ field: "fromVersionId", message: `fromVersionId must differ from the target version "${versionId}"` }],
    ),
};
