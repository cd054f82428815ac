/**
 * The developer API's answers as the OpenAPI document describes them, reduced to what a profile needs: for
 * each operation and status, the JSON shape of the body (types, fields, which are required, array items), the
 * error codes, and the headers. `shapesOfDocument` makes them from the document (`npm run client:generate`
 * writes the result to answer-shapes.generated.ts, and a test checks it is current), so loading a profile
 * needs no document at run time.
 */
import type { JsonType } from "./model";

export interface Shape {
  /** The JSON types a value may have here. */
  types: JsonType[];
  /** An object's named fields. */
  fields?: Record<string, Shape>;
  required?: string[];
  /** A map's values (an object whose keys are data, e.g. byVersion). */
  values?: Shape;
  /** An object that may carry fields beyond `fields`. */
  open?: boolean;
  /** An array's items. */
  items?: Shape;
}

export interface AnswerShape {
  /** null: no body (204). */
  body: Shape | null;
  /** An error answer's codes. */
  codes?: string[];
  /** Headers ext sends with it, lower case (Content-Type of a JSON body included). */
  headers: string[];
}

/** `METHOD /path/{param}` → status → answer. */
export type AnswerShapes = Record<string, Record<string, AnswerShape>>;

/** The developer API: what a profile may change (not the control plane, the docs or /healthz). */
export const PROFILED_PREFIXES = ["/developer/v1/", "/v1/developer/"];
const METHODS = ["get", "post", "put", "patch", "delete"];

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

function resolve(document: Json, schema: unknown): Json {
  let s = isObject(schema) ? schema : {};
  for (let i = 0; typeof s.$ref === "string" && i < 20; i++) {
    const name = s.$ref.replace(/^#\/components\/schemas\//, "");
    s = ((document.components as Json)?.schemas as Json)?.[name] as Json;
    if (!isObject(s)) throw new Error(`unresolvable reference ${String(name)}`);
  }
  return s;
}

function merge(a: Shape, b: Shape): Shape {
  const types = a.types.filter((x) => b.types.includes(x));
  const out: Shape = { types: types.length > 0 ? types : a.types };
  if (a.fields || b.fields) {
    const fields: Record<string, Shape> = { ...a.fields };
    for (const [k, v] of Object.entries(b.fields ?? {})) fields[k] = fields[k] ? merge(fields[k]!, v) : v;
    out.fields = fields;
    out.required = [...new Set([...(a.required ?? []), ...(b.required ?? [])])];
  }
  // A refinement (allOf) that leaves its object open adds nothing to the other's closed field set.
  if (a.open === false || b.open === false) out.open = false;
  else if (a.open || b.open) out.open = true;
  if (a.values ?? b.values) out.values = a.values ?? b.values;
  if (a.items ?? b.items) out.items = a.items ?? b.items;
  return out;
}

function union(shapes: Shape[]): Shape {
  const out: Shape = { types: [...new Set(shapes.flatMap((s) => s.types))] };
  for (const s of shapes) {
    if (s.fields) {
      out.fields = { ...out.fields, ...s.fields };
      out.required = s.required ?? [];
    }
    if (s.open !== undefined) out.open = s.open;
    if (s.values) out.values = s.values;
    if (s.items) out.items = s.items;
  }
  return out;
}

const TYPE_OF_CONST = (v: unknown): JsonType =>
  v === null
    ? "null"
    : Array.isArray(v)
      ? "array"
      : Number.isInteger(v)
        ? "integer"
        : (typeof v as "string" | "number" | "boolean" | "object");

/** One schema of the document as a Shape. */
export function shapeOf(document: Json, schema: unknown, depth = 0): Shape {
  if (depth > 30) throw new Error("schema nests too deeply");
  const s = resolve(document, schema);
  if (Array.isArray(s.allOf)) {
    const parts = s.allOf.map((p) => shapeOf(document, p, depth + 1));
    const own = { ...s };
    delete own.allOf;
    const rest = Object.keys(own).some((k) => ["type", "properties", "items", "additionalProperties"].includes(k))
      ? [shapeOf(document, own, depth + 1)]
      : [];
    return [...parts, ...rest].reduce(merge);
  }
  const alternatives = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  if (Array.isArray(alternatives)) return union(alternatives.map((p) => shapeOf(document, p, depth + 1)));
  let types: JsonType[];
  if (Array.isArray(s.type)) types = s.type as JsonType[];
  else if (typeof s.type === "string") types = [s.type as JsonType];
  else if ("const" in s) types = [TYPE_OF_CONST(s.const)];
  else if (s.properties || s.additionalProperties !== undefined) types = ["object"];
  else types = ["string", "integer", "number", "boolean", "null", "object", "array"];
  const out: Shape = { types };
  if (types.includes("object")) {
    const props = isObject(s.properties) ? s.properties : {};
    out.fields = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, shapeOf(document, v, depth + 1)]));
    out.required = Array.isArray(s.required) ? (s.required as string[]) : [];
    if (isObject(s.additionalProperties)) out.values = shapeOf(document, s.additionalProperties, depth + 1);
    else out.open = s.additionalProperties !== false;
  }
  if (types.includes("array")) out.items = shapeOf(document, s.items, depth + 1);
  return out;
}

function codesOf(body: Shape | null, schema: Json, document: Json): string[] | undefined {
  if (!body?.fields?.error) return undefined;
  // The refinement's enum of codes: found in the schema itself, not the shape (which keeps types only).
  const found = new Set<string>();
  const walk = (node: unknown, depth: number) => {
    const s = resolve(document, node);
    if (depth > 10) return;
    for (const part of (s.allOf as unknown[]) ?? []) walk(part, depth + 1);
    const code = ((s.properties as Json)?.error as Json)?.properties as Json | undefined;
    const codeSchema = code?.code as Json | undefined;
    for (const c of (codeSchema?.enum as string[]) ?? []) found.add(c);
  };
  walk(schema, 0);
  return [...found].sort();
}

/** Every developer-API operation's answers, from the OpenAPI document. */
export function shapesOfDocument(document: Json): AnswerShapes {
  const out: AnswerShapes = {};
  const paths = isObject(document.paths) ? document.paths : {};
  for (const [path, item] of Object.entries(paths).sort(([a], [b]) => a.localeCompare(b))) {
    if (!PROFILED_PREFIXES.some((p) => path.startsWith(p)) || !isObject(item)) continue;
    for (const method of METHODS) {
      const op = item[method];
      if (!isObject(op) || !isObject(op.responses)) continue;
      const answers: Record<string, AnswerShape> = {};
      for (const [status, response] of Object.entries(op.responses)) {
        if (!/^[2-5]\d\d$/.test(status) || !isObject(response)) continue;
        const schema = ((response.content as Json)?.["application/json"] as Json)?.schema;
        const body = schema === undefined ? null : shapeOf(document, schema);
        const headers = Object.keys(isObject(response.headers) ? response.headers : {}).map((h) => h.toLowerCase());
        if (body) headers.push("content-type");
        const codes = schema === undefined ? undefined : codesOf(body, resolve(document, schema), document);
        answers[status] = { body, ...(codes && codes.length > 0 ? { codes } : {}), headers: headers.sort() };
      }
      out[`${method.toUpperCase()} ${path}`] = answers;
    }
  }
  return out;
}

/** The JSON type of a value, as profiles name types. */
export function jsonTypeOf(v: unknown): JsonType {
  return TYPE_OF_CONST(v);
}

/** Whether `shape` admits a value of JSON type `type` (an integer is a number too). */
export function admits(shape: Shape, type: JsonType): boolean {
  return shape.types.includes(type) || (type === "integer" && shape.types.includes("number"));
}

/**
 * The field `name` of an object's shape: its own fields only, so a name Object.prototype holds (constructor,
 * toString, __proto__) is no field of any answer.
 */
export function fieldOf(shape: Shape, name: string): Shape | undefined {
  return shape.fields && Object.hasOwn(shape.fields, name) ? shape.fields[name] : undefined;
}

export type PathStep = { field: string; each: boolean };

/** `extensions[].installCount` → [{field: extensions, each: true}, {field: installCount, each: false}]. */
export function parsePath(path: string): PathStep[] {
  return path.split(".").map((part) => ({ field: part.replace(/\[\]$/, ""), each: part.endsWith("[]") }));
}

/**
 * The shape at `steps` in `body`, or why there is none: a field the answer does not have, a `[]` on a field
 * that is not an array, or the reverse. `parent` is the shape of the object holding the last field.
 */
export function shapeAt(
  body: Shape | null,
  steps: PathStep[],
): { ok: true; shape: Shape | undefined; parent: Shape } | { ok: false; reason: string } {
  if (!body) return { ok: false, reason: "the answer has no body" };
  let node = body;
  for (let i = 0; i < steps.length; i++) {
    const { field, each } = steps[i]!;
    const where = steps
      .slice(0, i)
      .map((s) => s.field + (s.each ? "[]" : ""))
      .join(".");
    if (!node.fields) return { ok: false, reason: `${where || "the body"} is not an object` };
    const next = fieldOf(node, field);
    if (i === steps.length - 1) {
      if (each) return { ok: false, reason: `a path ends with a field's name, not with [] (${field}[])` };
      return { ok: true, shape: next, parent: node };
    }
    if (!next) return { ok: false, reason: `the answer has no field ${field}${where ? ` in ${where}` : ""}` };
    if (each) {
      if (!next.items) return { ok: false, reason: `${field} is not an array (drop the [])` };
      node = next.items;
    } else {
      if (next.items && !next.fields) return { ok: false, reason: `${field} is an array: write ${field}[]` };
      node = next;
    }
  }
  return { ok: false, reason: "an empty path" };
}
