/**
 * What one observed answer says about the platform, as profile entries: the answer compared with the answer
 * ext gives the same request (its status and code, known to the caller: a conformance check's expectation,
 * or the proxy's in-process replay) and the shape the OpenAPI document gives that answer. What a profile
 * cannot hold (a success where ext refuses, a body where ext has none, a value that differs item by item)
 * comes back as words, never as an approximate entry.
 */
import { answerShapes } from "./answer-shapes.generated";
import { isError } from "./compile";
import { headerAddedProblem, headerMissingProblem } from "./headers";
import type { ProfileEntry } from "./model";
import { type AnswerShapes, admits, fieldOf, jsonTypeOf, type Shape } from "./shapes";

/** An entry without its evidence: what an observation yields. */
export type ObservedEntry = ProfileEntry extends infer E ? (E extends unknown ? Omit<E, "evidence"> : never) : never;

export interface ObservedAnswer {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: string;
}

export interface ExtAnswer {
  status: number;
  /** An error answer's code, when known. */
  code?: string;
}

export interface Observation {
  entries: ObservedEntry[];
  /** Differences a profile cannot hold, in words. */
  unexpressible: string[];
}

/** Values ext always sends for these headers (the developer API's 401). */
const EXT_HEADER_VALUES = new Map([["www-authenticate", 'Bearer realm="developer-api"']]);
/** Headers whose values follow the platform's windows or the request: reported, never copied into a profile. */
const VARYING_HEADERS = /^(x-ratelimit-.*|retry-after|location|allow)$/;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** JSON with sorted keys: two observations of one value compare equal whatever the key order. */
export function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (isObject(v))
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
      .join(",")}}`;
  return JSON.stringify(v) ?? "null";
}

type FieldDiff =
  | { kind: "field-missing"; path: string }
  | { kind: "field-renamed"; path: string; observed: string }
  | { kind: "field-added"; path: string; observed: unknown }
  | { kind: "field-type"; path: string; observed: ReturnType<typeof jsonTypeOf>; example: unknown }
  | { kind: "varies"; path: string };

const join = (path: string, name: string) => (path ? `${path}.${name}` : name);

function diffValue(shape: Shape, value: unknown, path: string, out: FieldDiff[]): void {
  const type = jsonTypeOf(value);
  if (!admits(shape, type)) {
    out.push({ kind: "field-type", path, observed: type, example: value });
    return;
  }
  if (isObject(value) && shape.fields && !shape.values) {
    // Own fields and keys only: a key named like a built-in object member (constructor, __proto__) is data.
    const field = (name: string) => fieldOf(shape, name);
    const missing = (shape.required ?? []).filter((f) => !Object.hasOwn(value, f));
    const extra = shape.open ? [] : Object.keys(value).filter((k) => !field(k));
    const renamed = new Map<string, string>();
    for (const m of missing) {
      const fits = extra.filter((e) => admits(field(m)!, jsonTypeOf(value[e])));
      if (fits.length !== 1) continue;
      const e = fits[0]!;
      const rivals = missing.filter((o) => admits(field(o)!, jsonTypeOf(value[e])));
      if (rivals.length === 1) renamed.set(m, e);
    }
    for (const m of missing) {
      const e = renamed.get(m);
      if (e === undefined) out.push({ kind: "field-missing", path: join(path, m) });
      else {
        out.push({ kind: "field-renamed", path: join(path, m), observed: e });
        diffValue(field(m)!, value[e], join(path, m), out);
      }
    }
    const taken = new Set(renamed.values());
    for (const e of extra)
      if (!taken.has(e)) out.push({ kind: "field-added", path: join(path, e), observed: value[e] });
    for (const [name, v] of Object.entries(value)) {
      const known = field(name);
      if (known) diffValue(known, v, join(path, name), out);
    }
    return;
  }
  if (Array.isArray(value) && shape.items && value.length > 0) {
    const each = value.map((item) => {
      const found: FieldDiff[] = [];
      diffValue(shape.items!, item, `${path}[]`, found);
      return found;
    });
    const key = (d: FieldDiff) => `${d.kind} ${d.path}`;
    const same = (d: FieldDiff) =>
      d.kind === "field-added" ? canonical(d.observed) : d.kind === "field-renamed" ? d.observed : "";
    const first = new Map(each[0]!.map((d) => [key(d), d]));
    const seen = new Set(each.flatMap((list) => list.map(key)));
    for (const k of seen) {
      const everywhere = each.every((list) => list.some((d) => key(d) === k && same(d) === same(first.get(k) ?? d)));
      if (everywhere && first.has(k)) out.push(first.get(k)!);
      else out.push({ kind: "varies", path: k.slice(k.indexOf(" ") + 1) });
    }
  }
}

const mediaType = (v: string | undefined) => (v ?? "").split(";")[0]!.trim().toLowerCase();

/**
 * The entries an answer to `operation` shows, compared with `ext`'s answer. `operation` is a key of the
 * document's answers (`GET /developer/v1/extensions/{id}`).
 */
export function observe(
  operation: string,
  ext: ExtAnswer,
  observed: ObservedAnswer,
  shapes: AnswerShapes = answerShapes(),
): Observation {
  const entries: ObservedEntry[] = [];
  const unexpressible: string[] = [];
  const extShape = shapes[operation]?.[String(ext.status)];
  if (!extShape) return { entries, unexpressible: [`ext's ${ext.status} answer of ${operation} is not documented`] };
  const extError = isError(ext.status);
  if (extError !== isError(observed.status)) {
    unexpressible.push(
      `the target answered ${observed.status} where ext answers ${ext.status}${ext.code ? ` ${ext.code}` : ""}: it ${extError ? "accepted what ext refuses" : "refused what ext accepts"}, another rule, which a profile cannot hold`,
    );
    return { entries, unexpressible };
  }
  // An error entry names ext's code only where the status has several.
  const code = extError && ext.code && (extShape.codes?.length ?? 0) > 1 ? { code: ext.code } : {};
  const base = { operation, answer: ext.status, ...code };
  if (observed.status !== ext.status) entries.push({ ...base, difference: "status", observed: observed.status });

  if (extShape.body === null) {
    if (observed.body !== "")
      unexpressible.push(`the target sends a body with its ${observed.status} where ext sends none`);
  } else {
    let value: unknown;
    try {
      value = JSON.parse(observed.body);
    } catch {
      unexpressible.push(`the target's ${observed.status} answer is not JSON where ext's is`);
      value = undefined;
    }
    if (value !== undefined) {
      if (!isObject(value)) unexpressible.push(`the target's body is ${jsonTypeOf(value)}, not an object like ext's`);
      else {
        const diffs: FieldDiff[] = [];
        diffValue(extShape.body, value, "", diffs);
        for (const d of diffs) {
          if (d.kind === "varies") unexpressible.push(`${d.path} differs from one item to the next`);
          else if (d.kind === "field-type")
            entries.push({ ...base, difference: d.kind, path: d.path, observed: d.observed, example: d.example });
          else if (d.kind === "field-missing") entries.push({ ...base, difference: d.kind, path: d.path });
          else entries.push({ ...base, difference: d.kind, path: d.path, observed: d.observed } as ObservedEntry);
        }
        const error = isObject(value.error) ? value.error : null;
        if (extError && error) {
          if (ext.code && typeof error.code === "string" && error.code !== ext.code)
            entries.push({ ...base, difference: "error-field", field: "code", observed: error.code });
          if (typeof error.status === "number" && Number.isInteger(error.status) && error.status !== observed.status)
            entries.push({ ...base, difference: "error-field", field: "status", observed: error.status });
        }
      }
    }
  }

  // A header difference is saved only where a profile may hold it (server/profile/headers.ts: every answer stays
  // JSON, only allowlisted headers): a target cannot make a saved profile serve its page on ext's origin.
  const header = (h: string, value: string | null) => {
    const problem = value === null ? headerMissingProblem(h) : headerAddedProblem(h, value);
    if (problem)
      unexpressible.push(
        `the target's ${observed.status} answer ${value === null ? `has no ${h}` : `sends ${h}`}: ${problem}`,
      );
    else if (value === null) entries.push({ ...base, difference: "header-missing", header: h });
    else entries.push({ ...base, difference: "header-added", header: h, observed: value });
  };
  for (const h of extShape.headers) {
    const got = observed.headers[h];
    if (got === undefined) {
      if (h !== "content-type" || observed.body !== "") header(h, null);
    } else if (
      h === "content-type"
        ? mediaType(got) !== "application/json"
        : EXT_HEADER_VALUES.has(h) && got !== EXT_HEADER_VALUES.get(h)
    )
      header(h, got);
  }
  for (const [h, v] of Object.entries(observed.headers)) {
    if (extShape.headers.includes(h)) continue;
    if (EXT_HEADER_VALUES.has(h)) header(h, v);
    else if (VARYING_HEADERS.test(h))
      unexpressible.push(
        `the target sends ${h} with its ${observed.status}, ext does not: its value follows the request`,
      );
  }
  return { entries, unexpressible };
}

/** The operation a request is, from its method and path (`/developer/v1/extensions/ext_1` → `…/{id}`). */
export function operationOf(method: string, path: string, shapes: AnswerShapes = answerShapes()): string | null {
  const parts = path.split("?")[0]!.split("/");
  for (const operation of Object.keys(shapes)) {
    const [m, template] = operation.split(" ") as [string, string];
    if (m !== method) continue;
    const segments = template.split("/");
    if (segments.length !== parts.length) continue;
    if (segments.every((s, i) => (/^\{.+\}$/.test(s) ? parts[i] !== "" : s === parts[i]))) return operation;
  }
  return null;
}
