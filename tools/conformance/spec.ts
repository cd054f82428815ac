/**
 * The spec's tables (developer-api.md §2, §4, §7, §8), written out as data: the field sets each answer
 * carries, the code of each error status, the rate limits. Conformance checks and the proxy both judge
 * answers by these, so they cannot disagree.
 */
export type Kind = "string" | "nullable-string" | "integer" | "timestamp" | "object" | "string-array";
export type FieldTable = Record<string, Kind>;

/** §2: "The list response carries: id, slug, name, visibility, status, installCount, currentVersionId, createdAt, updatedAt." */
export const EXTENSION_LIST: FieldTable = {
  id: "string",
  slug: "string",
  name: "string",
  visibility: "string",
  status: "string",
  installCount: "integer",
  // The spec types it as a string and shows no extension without a current version; ext sends null then.
  currentVersionId: "nullable-string",
  createdAt: "timestamp",
  updatedAt: "timestamp",
};

/** §2: "The get response is the full object, including pricing, description and ratingCount." */
export const EXTENSION_FULL: FieldTable = {
  ...EXTENSION_LIST,
  short_description: "string",
  description: "string",
  pricing: "object",
  ratingCount: "integer",
};

/** §4: 201 {extension: {id, slug, name, status, createdAt}}. */
export const EXTENSION_CREATED: FieldTable = {
  id: "string",
  slug: "string",
  name: "string",
  status: "string",
  createdAt: "timestamp",
};

/** §2 Version in list responses; `approvedAt` only on approved versions. */
export const VERSION: FieldTable = {
  id: "string",
  version: "string",
  status: "string",
  bundleSizeBytes: "integer",
  submittedAt: "timestamp",
  changelog: "string",
};
export const VERSION_OPTIONAL: FieldTable = { approvedAt: "timestamp" };

/** §4: 202 {version: {id, version, status, submittedAt}}. */
export const VERSION_SUBMITTED: FieldTable = {
  id: "string",
  version: "string",
  status: "string",
  submittedAt: "timestamp",
};

/** §2 Install statistics. */
export const INSTALLS: FieldTable = { total: "integer", active: "integer", byVersion: "object" };

/** §7: the code each status carries; 404 may be a more specific `*_not_found`. */
export const CODE_OF_STATUS: Record<number, RegExp> = {
  401: /^unauthorized$/,
  403: /^forbidden$/,
  404: /^([a-z]+_)?not_found$/,
  422: /^[a-z_]+$/,
  429: /^rate_limited$/,
  500: /^internal_error$/,
};

/** The spec's code for each status of CODE_OF_STATUS, in words, for a difference that names both sides. */
export const SPEC_CODE_WORDS: Record<number, string> = {
  401: "`unauthorized`",
  403: "`forbidden`",
  404: "`not_found`, or a more specific one such as `extension_not_found`",
  422: "a lower-case code such as `validation_error`",
  429: "`rate_limited`",
  500: "`internal_error`",
};

/** §8 API rate limits per account. */
export const RATE_LIMITS = {
  get: { limit: 120, windowSeconds: 60 },
  createExtension: { limit: 10, windowSeconds: 3600 },
  submitVersion: { limit: 30, windowSeconds: 3600 },
  delete: { limit: 30, windowSeconds: 60 },
} as const;

/** §4: the endpoints, as templates; `:id` an extension id, `:key` a secret name. */
export const ENDPOINTS = [
  "GET /developer/v1/extensions",
  "POST /developer/v1/extensions",
  "GET /developer/v1/extensions/:id",
  "PATCH /developer/v1/extensions/:id",
  "DELETE /developer/v1/extensions/:id",
  "GET /developer/v1/extensions/:id/versions",
  "POST /developer/v1/extensions/:id/versions",
  "GET /developer/v1/extensions/:id/installs",
  "GET /developer/v1/extensions/:id/secrets",
  "PUT /developer/v1/extensions/:id/secrets/:key",
  "DELETE /developer/v1/extensions/:id/secrets/:key",
  "GET /v1/developer/extensions/:id/limits",
] as const;
export type Endpoint = (typeof ENDPOINTS)[number];
