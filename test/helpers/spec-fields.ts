/**
 * The spec's field tables (shared/spec/developer-api.md §2, §4, §7), written out literally so a response is
 * held to what the spec says and not only to the emulator's own OpenAPI document. Each check returns
 * problems as text; a route the spec does not describe gives none.
 */

type Kind = "string" | "integer" | "timestamp" | "object" | "nullable-string";

/** §2 Extension, as the list response carries it. `currentVersionId` is null until a version is approved. */
const EXTENSION_LIST: Record<string, Kind> = {
  id: "string",
  slug: "string",
  name: "string",
  visibility: "string",
  status: "string",
  installCount: "integer",
  currentVersionId: "nullable-string",
  createdAt: "timestamp",
  updatedAt: "timestamp",
};
/** §2: "The get response is the full object, including pricing, description and ratingCount." */
const EXTENSION_FULL: Record<string, Kind> = {
  ...EXTENSION_LIST,
  short_description: "string",
  description: "string",
  pricing: "object",
  ratingCount: "integer",
};
/** §4: 201 {extension: {id, slug, name, status, createdAt}}. */
const EXTENSION_CREATED: Record<string, Kind> = {
  id: "string",
  slug: "string",
  name: "string",
  status: "string",
  createdAt: "timestamp",
};
/** §2 Version, in list responses (`approvedAt` on approved versions). */
const VERSION: Record<string, Kind> = {
  id: "string",
  version: "string",
  status: "string",
  bundleSizeBytes: "integer",
  submittedAt: "timestamp",
  changelog: "string",
};
/** §4: 202 {version: {id, version, status, submittedAt}}. */
const VERSION_SUBMITTED: Record<string, Kind> = {
  id: "string",
  version: "string",
  status: "string",
  submittedAt: "timestamp",
};
/** §2 Install statistics. */
const INSTALLS: Record<string, Kind> = { total: "integer", active: "integer", byVersion: "object" };

/** §7: the code each of these statuses carries. 404 may be a more specific `*_not_found`. */
const CODE_OF_STATUS: Record<number, RegExp> = {
  401: /^unauthorized$/,
  403: /^forbidden$/,
  404: /^([a-z]+_)?not_found$/,
  429: /^rate_limited$/,
  500: /^internal_error$/,
};

const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function fieldProblems(where: string, value: unknown, fields: Record<string, Kind>): string[] {
  if (!isObject(value)) return [`${where}: not an object`];
  const out: string[] = [];
  for (const [name, kind] of Object.entries(fields)) {
    const v = value[name];
    const ok =
      kind === "string"
        ? typeof v === "string"
        : kind === "nullable-string"
          ? v === null || typeof v === "string"
          : kind === "integer"
            ? Number.isInteger(v)
            : kind === "timestamp"
              ? typeof v === "string" && TIMESTAMP.test(v)
              : isObject(v);
    if (!ok) out.push(`${where}: ${name}: expected ${kind} (spec), got ${JSON.stringify(v)}`);
  }
  return out;
}

/** Problems of one developer-API response (`path` relative to /developer/v1) against the spec's tables. */
export function specProblems(
  method: string,
  path: string,
  status: number,
  headers: Headers,
  body: unknown,
  text: string,
  options: { injected?: boolean } = {},
): string[] {
  const at = `${method} ${path} → ${status}`;
  if (status >= 400) {
    const error = isObject(body) ? body.error : undefined;
    if (!isObject(error) || typeof error.code !== "string" || typeof error.message !== "string")
      return [`${at}: not the spec's error envelope {error:{code,message,status}}`];
    const out = error.status === status ? [] : [`${at}: error.status ${JSON.stringify(error.status)}`];
    const code = CODE_OF_STATUS[status];
    if (code && !options.injected && !code.test(error.code)) out.push(`${at}: code ${error.code} (spec: ${code})`);
    if (status === 429 && !/^\d+$/.test(headers.get("retry-after") ?? "")) out.push(`${at}: no Retry-After seconds`);
    return out;
  }
  const route = `${method} ${path.replace(/\?.*$/, "").replace(/\/extensions\/[^/]+/, "/extensions/:id")}`;
  const b = isObject(body) ? body : {};
  switch (route.replace(/\/secrets\/[^/]+$/, "/secrets/:key")) {
    case "GET /extensions":
      return Array.isArray(b.extensions)
        ? b.extensions.flatMap((e, i) => fieldProblems(`${at} extensions[${i}]`, e, EXTENSION_LIST))
        : [`${at}: no extensions array`];
    case "GET /extensions/:id":
    case "PATCH /extensions/:id":
      return fieldProblems(at, body, EXTENSION_FULL);
    case "POST /extensions": {
      const out = status === 201 ? [] : [`${at}: the spec answers 201`];
      out.push(...fieldProblems(`${at} extension`, b.extension, EXTENSION_CREATED));
      if (isObject(b.extension) && b.extension.status !== "draft") out.push(`${at}: status is not draft (spec §3)`);
      return out;
    }
    case "GET /extensions/:id/versions":
      return Array.isArray(b.versions)
        ? b.versions.flatMap((v, i) => [
            ...fieldProblems(`${at} versions[${i}]`, v, VERSION),
            ...(isObject(v) && v.status === "approved" && typeof v.approvedAt !== "string"
              ? [`${at} versions[${i}]: approved without approvedAt`]
              : []),
          ])
        : [`${at}: no versions array`];
    case "POST /extensions/:id/versions": {
      const out = status === 202 ? [] : [`${at}: the spec answers 202`];
      out.push(...fieldProblems(`${at} version`, b.version, VERSION_SUBMITTED));
      if (isObject(b.version) && b.version.status !== "pending") out.push(`${at}: status is not pending (spec §3)`);
      return out;
    }
    case "GET /extensions/:id/installs": {
      const out = fieldProblems(at, body, INSTALLS);
      if (isObject(b.byVersion) && !Object.values(b.byVersion).every(Number.isInteger))
        out.push(`${at}: byVersion maps to non-integers`);
      return out;
    }
    case "GET /extensions/:id/secrets":
      return Array.isArray(b.keys) && b.keys.every((k) => typeof k === "string") ? [] : [`${at}: keys not strings`];
    case "DELETE /extensions/:id":
    case "PUT /extensions/:id/secrets/:key":
    case "DELETE /extensions/:id/secrets/:key":
      return status === 204 && text === "" ? [] : [`${at}: the spec answers 204 with no body`];
    default:
      return [];
  }
}
