/**
 * What @elysiajs/openapi cannot be told, applied to the document it generates — and nothing else, so the
 * document never drifts from the routes:
 *  - named models (a `$id` under #/components/schemas/, see server/schema/schema.ts) are inlined by the
 *    generator: each is moved to `components.schemas` and referenced with `$ref`;
 *  - a 204's `t.Void()` becomes `content: {type: "void"}`, which is not a media-type map: dropped;
 *  - a query or path parameter declared with Elysia's coercing `t.Integer` is documented as the
 *    `string | integer` union the validator accepts on the way in: a URL is text anyway, so the
 *    parameter is documented as the integer it stands for;
 *  - a success that is not JSON (`servedAs(...)`) is documented under its own media types, not the
 *    generator's `text/plain`;
 *  - document-only keywords (`documentOnly(...)`) are merged into their schema;
 *  - a field whose values the spec leaves open (`openInDocument()`) becomes "the known values, or any
 *    other string", the known ones also listed as `x-known-values`;
 *  - a response header marked `requiredHeader()` is documented as required;
 *  - a route's declared errors (server/errors/model.ts: in its `detail`, so that Elysia compiles no validator
 *    for them) become its error responses: the envelope with the codes the route declares for that status, one
 *    example per code, the status's headers;
 *  - a route's ready answers (server/http/responses.ts: also in its `detail`, for the same reason) become its
 *    success responses, a reference to their model;
 *  - a map keyed by any string (TypeBox's `Record(String, X)`: `patternProperties: {"^(.*)$": X}`) is
 *    written `additionalProperties: X`, which every generator types as a map of X (with
 *    `patternProperties` some type its values `unknown`).
 * What a route can declare itself is not added here: the 400 `malformed_path` of every route with a path
 * parameter (server/http/path-encoding.ts) is in the route's own response codes.
 */

import type { ErrorCode } from "../errors/codes";
import { ERROR_RESPONSES_KEY, errorResponseDescription, errorResponseSchema } from "../errors/model";
import { READY_ANSWERS_KEY } from "../http/responses";
import {
  DOCUMENT_ONLY_KEY,
  MEDIA_TYPES_KEY,
  OPEN_VALUES_KEY,
  REQUIRED_HEADER_KEY,
  SCHEMA_ID_PREFIX,
} from "../schema/schema";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

export class DocumentError extends Error {
  override name = "DocumentError";
}

/** Returns a new document; the input is left as it is (the generator's output may be cached). */
export function postProcessDocument<D extends object>(generated: D): D {
  const doc = structuredClone(generated) as unknown as JsonObject;
  for (const item of Object.values(isObject(doc.paths) ? doc.paths : {})) {
    if (!isObject(item)) continue;
    for (const op of Object.values(item)) {
      if (!isObject(op)) continue;
      writeReadyAnswers(op, isObject(doc.components) && isObject(doc.components.schemas) ? doc.components.schemas : {});
      writeErrorResponses(op);
    }
  }
  // Each occurrence of a named schema becomes a slot, filled with its `$ref` once every occurrence is known.
  const occurrences: { slot: JsonObject; name: string; schema: JsonObject; nullable: boolean }[] = [];

  const visit = (node: Json): Json => {
    if (Array.isArray(node)) return node.map(visit);
    if (!isObject(node)) return node;
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(node)) out[k] = visit(v);
    if (isObject(out[DOCUMENT_ONLY_KEY])) {
      Object.assign(out, out[DOCUMENT_ONLY_KEY]);
      delete out[DOCUMENT_ONLY_KEY];
    }
    if (out[OPEN_VALUES_KEY] === true) return openValues(out);
    asMap(out);
    const id = out.$id;
    if (typeof id !== "string" || !id.startsWith(SCHEMA_ID_PREFIX)) return out;
    const { $id: _id, ...schema } = out;
    // The generator folds `Union([Named, Null], options)` into the named schema: `type: [T, "null"]`, plus
    // the union's own keywords (its description).
    const nullable = Array.isArray(schema.type) && schema.type.includes("null");
    if (nullable) {
      const types = (schema.type as Json[]).filter((t) => t !== "null");
      schema.type = types.length === 1 ? types[0]! : types;
    }
    const slot: JsonObject = {};
    occurrences.push({ slot, name: id.slice(SCHEMA_ID_PREFIX.length), schema, nullable });
    return slot;
  };

  const paths = visit(isObject(doc.paths) ? doc.paths : {}) as JsonObject;
  const components = isObject(doc.components) ? doc.components : {};
  const schemas = visit(isObject(components.schemas) ? components.schemas : {}) as JsonObject;

  const canonical = new Map<string, JsonObject>();
  for (const o of occurrences) if (!o.nullable && !canonical.has(o.name)) canonical.set(o.name, o.schema);
  for (const o of occurrences) if (!canonical.has(o.name)) canonical.set(o.name, o.schema);
  const ref = (name: string) => ({ $ref: SCHEMA_ID_PREFIX + name });
  for (const o of occurrences) if (!o.nullable) Object.assign(o.slot, ref(o.name));
  for (const o of occurrences) {
    if (!o.nullable) continue;
    // What the union added (its description) stays beside the reference.
    const model = canonical.get(o.name)!;
    const extra = Object.fromEntries(
      Object.entries(o.schema).filter(([k, v]) => JSON.stringify(model[k]) !== JSON.stringify(v)),
    );
    Object.assign(o.slot, { ...extra, anyOf: [ref(o.name), { type: "null" }] });
  }
  for (const o of occurrences) {
    const model = canonical.get(o.name)!;
    if (!o.nullable && JSON.stringify(o.schema) !== JSON.stringify(model)) {
      throw new DocumentError(
        `Two different schemas are named "${o.name}": ${JSON.stringify(model)} and ${JSON.stringify(o.schema)}`,
      );
    }
  }

  for (const item of Object.values(paths)) {
    if (!isObject(item)) continue;
    for (const op of Object.values(item)) {
      if (!isObject(op)) continue;
      for (const response of Object.values(isObject(op.responses) ? op.responses : {})) {
        if (isObject(response) && isObject(response.headers)) markRequiredHeaders(response.headers);
        if (!isObject(response) || !isObject(response.content)) continue;
        if (typeof response.content.type === "string") delete response.content;
        else response.content = withMediaTypes(response.content);
      }
      if (Array.isArray(op.parameters)) {
        for (const p of op.parameters)
          if (isObject(p) && (p.in === "query" || p.in === "path") && isObject(p.schema))
            p.schema = asUrlInteger(p.schema);
      }
    }
  }
  doc.paths = paths;
  for (const name of canonical.keys()) schemas[name] = canonical.get(name)!;
  // In name order, whether a model came inline (moved here above) or registered with the app (the seed body).
  const sorted = Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  doc.components = { ...components, schemas: sorted };
  // A reference written by hand (a ready answer's, a body the route reads itself) names a model the app registered.
  for (const name of referencedModels(doc)) {
    if (!(name in sorted)) throw new DocumentError(`The document refers to a model it does not have: ${name}`);
  }
  // The version first, as readers of the document expect.
  return { openapi: doc.openapi, ...doc } as unknown as D;
}

/** `{name: schema}` header schemas as a response's headers, as the generator writes them. */
const asHeaders = (headers: JsonObject): JsonObject =>
  Object.fromEntries(Object.entries(headers).map(([name, schema]) => [name, { schema }]));

/**
 * An operation's ready answers (readyAnswer, in its route's `detail`) as its responses, each as the generator
 * would have written it from the model: the model's description (or the generator's default), the headers, a
 * reference to the model, which the document's app registered.
 */
function writeReadyAnswers(op: JsonObject, models: JsonObject): void {
  const declared = op[READY_ANSWERS_KEY];
  delete op[READY_ANSWERS_KEY];
  if (!isObject(declared)) return;
  const responses = isObject(op.responses) ? op.responses : {};
  for (const [status, entry] of Object.entries(declared)) {
    if (!isObject(entry) || typeof entry.model !== "string") continue;
    const model = models[entry.model.slice(SCHEMA_ID_PREFIX.length)];
    const description = isObject(model) && typeof model.description === "string" ? model.description : null;
    responses[status] = {
      description: description ?? `Response for status ${status}`,
      ...(isObject(entry.headers) ? { headers: asHeaders(entry.headers) } : {}),
      content: { "application/json": { schema: { $ref: entry.model } } },
    };
  }
  op.responses = responses;
}

/**
 * An operation's declared errors (`errorResponses`, in its route's `detail`) as its responses, each as the generator
 * would have written it from a schema: the description, the headers, the envelope narrowed to the status's codes.
 */
function writeErrorResponses(op: JsonObject): void {
  const declared = op[ERROR_RESPONSES_KEY];
  delete op[ERROR_RESPONSES_KEY];
  if (!isObject(declared)) return;
  const responses = isObject(op.responses) ? op.responses : {};
  for (const [status, entry] of Object.entries(declared)) {
    if (!isObject(entry) || !Array.isArray(entry.codes)) continue;
    const codes = entry.codes as ErrorCode[];
    const headers: JsonObject = isObject(entry.headers) ? { headers: asHeaders(entry.headers) } : {};
    responses[status] = {
      description: errorResponseDescription(Number(status), codes),
      ...headers,
      content: { "application/json": { schema: asJson(errorResponseSchema(Number(status), codes)) } },
    };
  }
  op.responses = responses;
}

const asJson = (schema: object) => JSON.parse(JSON.stringify(schema)) as Json;

/** The names of the models the document's `$ref`s point to. */
function referencedModels(node: Json, found = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const item of node) referencedModels(item, found);
  else if (isObject(node))
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && typeof value === "string" && value.startsWith(SCHEMA_ID_PREFIX))
        found.add(value.slice(SCHEMA_ID_PREFIX.length));
      else referencedModels(value, found);
    }
  return found;
}

/** TypeBox's pattern for a `Record` keyed by `t.String()`. */
const ANY_KEY = "^(.*)$";

/** `{patternProperties: {"^(.*)$": X}, additionalProperties: false}` → `{additionalProperties: X}`, in place. */
function asMap(schema: JsonObject): void {
  const patterns = schema.patternProperties;
  if (!isObject(patterns) || Object.keys(patterns).length !== 1 || !isObject(patterns[ANY_KEY])) return;
  schema.additionalProperties = patterns[ANY_KEY];
  delete schema.patternProperties;
}

/** A content map whose one schema names its media types (`servedAs`): that schema under each of them. */
function withMediaTypes(content: JsonObject): JsonObject {
  const entries = Object.values(content);
  const schema = entries.length === 1 && isObject(entries[0]) ? entries[0].schema : undefined;
  if (!isObject(schema) || !Array.isArray(schema[MEDIA_TYPES_KEY])) return content;
  const { [MEDIA_TYPES_KEY]: types, ...rest } = schema;
  return Object.fromEntries((types as Json[]).map((type) => [String(type), { schema: rest }]));
}

/** `anyOf[{type: string, format: integer}, {type: integer, …}]` (Elysia's t.Integer) → the integer branch. */
function asUrlInteger(schema: JsonObject): JsonObject {
  const branches = schema.anyOf;
  if (!Array.isArray(branches) || branches.length !== 2) return schema;
  const [text, int] = branches;
  if (
    !isObject(text) ||
    !isObject(int) ||
    text.type !== "string" ||
    text.format !== "integer" ||
    int.type !== "integer"
  )
    return schema;
  const { anyOf: _anyOf, ...outer } = schema;
  return { ...outer, ...int };
}

/** `{type: string, enum: [...]}` (or a `const`) → any string, the known values first. */
function openValues(schema: JsonObject): JsonObject {
  const { [OPEN_VALUES_KEY]: _open, description, default: _default, examples, ...closed } = schema;
  const known = Array.isArray(closed.enum) ? closed.enum : closed.const !== undefined ? [closed.const] : [];
  return {
    ...(description !== undefined ? { description } : {}),
    anyOf: [closed, { type: "string" }],
    "x-known-values": known,
    ...(examples !== undefined ? { examples } : {}),
  };
}

/** A header whose schema carries the required marker: the marker moves to the header object. */
function markRequiredHeaders(headers: JsonObject): void {
  for (const header of Object.values(headers)) {
    if (!isObject(header) || !isObject(header.schema) || header.schema[REQUIRED_HEADER_KEY] !== true) continue;
    delete header.schema[REQUIRED_HEADER_KEY];
    header.required = true;
  }
}
