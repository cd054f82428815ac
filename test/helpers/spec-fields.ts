/**
 * The spec's field tables (shared/spec/developer-api.md §2, §4, §7), written out literally so a response is
 * held to what the spec says and not only to the emulator's own OpenAPI document. Each check returns
 * problems as text; a route the spec does not describe gives none.
 */

// The tables live once, beside the checks of `ext conformance`, which hold any server to them.
import {
  EXTENSION_CREATED,
  EXTENSION_FULL,
  EXTENSION_LIST,
  type FieldTable,
  INSTALLS,
  VERSION,
  VERSION_SUBMITTED,
} from "../../tools/conformance/spec";

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

function fieldProblems(where: string, value: unknown, fields: FieldTable): string[] {
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
              : kind === "string-array"
                ? Array.isArray(v) && v.every((x) => typeof x === "string")
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
