/**
 * A profile's meaning: each entry checked against the answers the OpenAPI document gives its operation (an
 * unknown operation, an answer ext never gives, a path the answer does not have, a change no rule can make
 * are refused, naming the entry and why), then compiled into one plan per answer: the status, the body's
 * changes as a tree over ext's field names, and the headers. Pure: the server applies the plans (apply.ts),
 * conformance and the proxy compile what they save so a saved profile always loads.
 */
import { compilePattern, type PathPattern } from "../http/route-table";
import { headerAddedProblem, headerMissingProblem } from "./headers";
import type { DifferenceKind, JsonType, Profile, ProfileEntry } from "./model";
import { type AnswerShape, type AnswerShapes, fieldOf, type PathStep, parsePath, type Shape, shapeAt } from "./shapes";

export class ProfileError extends Error {
  override name = "ProfileError";
  constructor(
    message: string,
    /** 1-based number of the entry at fault, when one is. */
    readonly entry?: number,
  ) {
    super(message);
  }
}

/** What happens to one field of an object, by ext's name for it. */
export interface FieldPlan {
  /** The object it holds, changed so. */
  child?: BodyPlan;
  /** Each item of the array it holds, changed so. */
  each?: BodyPlan;
  type?: JsonType;
  rename?: string;
  remove?: boolean;
  /** A value to send instead (error-field). */
  set?: { value: unknown };
}

export interface BodyPlan {
  fields: Map<string, FieldPlan>;
  /** Fields the platform adds, with their values (field-added). */
  added: [string, unknown][];
}

export interface AnswerPlan {
  /** The status sent; an error answer's error.status follows it unless an entry says otherwise. */
  status: number;
  body: BodyPlan | null;
  removeHeaders: string[];
  setHeaders: [string, string][];
  /** The entries (1-based numbers) this plan applies. */
  entries: number[];
}

export interface OperationPlan {
  operation: string;
  method: string;
  /** The operation's path template, matched by the app's one path matcher (server/http/route-table.ts). */
  path: PathPattern;
  /** ext's status → ext's error code (or "" for any) → the plan. */
  answers: Map<number, Map<string, AnswerPlan>>;
}

export interface CompiledProfile {
  profile: Profile;
  operations: OperationPlan[];
  /** The plans of the answer ext gave `status` to `method path`, by error code ("" for any); null: unchanged. */
  plansFor(method: string, path: string, status: number): Map<string, AnswerPlan> | null;
}

/** ext's JSON type → the platform's: how a value is converted, or absent when no rule makes one of the other. */
const CONVERSIONS: Partial<Record<JsonType, Partial<Record<JsonType, true>>>> = {
  string: { integer: true, number: true, boolean: true },
  number: { integer: true },
};

export function converts(from: JsonType, to: JsonType): boolean {
  return from === to || to === "null" || Boolean(CONVERSIONS[to]?.[from]);
}

export const isError = (status: number) => status >= 400;
const classOf = (status: number) => (isError(status) ? "error" : "success");

export function describeEntry(e: ProfileEntry): string {
  const what =
    "path" in e
      ? ` ${e.path}`
      : "header" in e
        ? ` ${e.header}`
        : e.difference === "error-field"
          ? ` error.${e.field}`
          : "";
  return `${e.operation}, answer ${e.answer}${e.code ? ` ${e.code}` : ""}, ${e.difference}${what}`;
}

/** The statuses of `answers` an entry's `answer` covers. */
function covered(answers: Record<string, AnswerShape>, answer: ProfileEntry["answer"]): number[] {
  const all = Object.keys(answers).map(Number);
  if (typeof answer === "number") return all.filter((s) => s === answer);
  return all.filter((s) => classOf(s) === answer);
}

function checkEntry(e: ProfileEntry, answers: Record<string, AnswerShape>, statuses: number[]): string | null {
  if (statuses.length === 0)
    return typeof e.answer === "number"
      ? `ext never answers ${e.operation} with ${e.answer} (it answers ${Object.keys(answers).join(", ")})`
      : `ext has no ${e.answer} answer of ${e.operation}`;
  if (e.code !== undefined) {
    if (!statuses.every(isError)) return "`code` narrows error answers only";
    if (!statuses.some((s) => answers[s]!.codes?.includes(e.code!)))
      return `ext's ${statuses.join("/")} answers of ${e.operation} never carry code ${e.code} (they carry ${[...new Set(statuses.flatMap((s) => answers[s]!.codes ?? []))].join(", ")})`;
  }
  switch (e.difference) {
    case "status":
      if (statuses.some((s) => classOf(s) !== classOf(e.observed)))
        return `${e.observed} is ${classOf(e.observed) === "error" ? "a refusal" : "a success"} where ext's answer is not: that is another rule (what the platform accepts or refuses), which a profile cannot hold`;
      return null;
    case "error-field":
      if (!statuses.every(isError)) return "error-field changes error answers only";
      if (e.field === "status" ? typeof e.observed !== "number" : typeof e.observed !== "string")
        return `error.${e.field} is ${e.field === "status" ? "an integer" : "a string"}`;
      return null;
    case "header-missing":
      for (const s of statuses)
        if (!answers[s]!.headers.includes(e.header.toLowerCase()))
          return `ext does not send ${e.header} with its ${s} answer, so it cannot be missing`;
      return headerMissingProblem(e.header);
    case "header-added":
      return headerAddedProblem(e.header, e.observed);
    default:
      for (const s of statuses) {
        const problem = checkPath(e, answers[s]!.body, parsePath(e.path));
        if (problem) return `${problem} (ext's ${s} answer)`;
      }
      return null;
  }
}

/** A JSON key a JavaScript client cannot read back as a field: assigning it sets the object's prototype. */
const PROTO = "__proto__";
const NO_PROTO = `${PROTO} cannot name a field: a JavaScript client reading the answer would take it for the object's prototype`;

function checkPath(e: Extract<ProfileEntry, { path: string }>, body: Shape | null, steps: PathStep[]): string | null {
  const at = shapeAt(body, steps);
  if (!at.ok) return at.reason;
  const name = steps.at(-1)!.field;
  if (!at.parent.fields) return `${e.path} is inside a map, whose keys are data`;
  const shape = at.shape;
  if (e.difference === "field-added") {
    if (name === PROTO) return NO_PROTO;
    if (shape) return `ext's answer has ${name} already: a profile can rename it, drop it or change its type`;
    if (at.parent.values) return `${e.path} is inside a map, whose keys are data`;
    return null;
  }
  if (!shape) return `the answer has no field ${e.path}`;
  if (e.difference === "field-renamed") {
    if (e.observed === name) return "the new name is the same";
    if (e.observed === PROTO) return NO_PROTO;
    if (fieldOf(at.parent, e.observed)) return `the answer has a field ${e.observed} already`;
  }
  if (e.difference === "field-type") {
    if (shape.types.length === 1 && shape.types[0] === e.observed)
      return `ext sends ${e.path} as ${e.observed} already`;
    const stuck = shape.types.filter((t) => !converts(t, e.observed));
    if (stuck.length > 0)
      return `no rule turns ext's ${stuck.join(" or ")} into ${e.observed} without guessing the platform's value`;
  }
  return null;
}

function emptyBody(): BodyPlan {
  return { fields: new Map(), added: [] };
}

/** The plan of the field at `steps`, made on the way. */
function fieldPlan(root: BodyPlan, steps: PathStep[]): { plan: FieldPlan; parent: BodyPlan; name: string } {
  let node = root;
  for (let i = 0; i < steps.length - 1; i++) {
    const { field, each } = steps[i]!;
    const plan = node.fields.get(field) ?? {};
    node.fields.set(field, plan);
    node = each ? (plan.each ??= emptyBody()) : (plan.child ??= emptyBody());
  }
  const name = steps.at(-1)!.field;
  const plan = node.fields.get(name) ?? {};
  node.fields.set(name, plan);
  return { plan, parent: node, name };
}

/** A field may change type and name together; any other two entries on one field contradict each other. */
function fieldClaims(status: number) {
  const byField = new Map<string, { kind: DifferenceKind; entry: number }[]>();
  const refuse = (first: number, n: number, path: string) =>
    new ProfileError(`entries ${first} and ${n} both change ${path} of the ${status} answer: keep one`, n);
  return (path: string, kind: DifferenceKind, n: number) => {
    const key = path.replace(/\[\]/g, "");
    const seen = byField.get(key) ?? [];
    const kinds = new Set([...seen.map((c) => c.kind), kind]);
    const pair = seen.length === 1 && kinds.size === 2 && kinds.has("field-type") && kinds.has("field-renamed");
    if (seen.length > 0 && !pair) throw refuse(seen[0]!.entry, n, path);
    // A field dropped or turned into another type takes what is inside it along: nothing in it can change too.
    const ends = (kinds: DifferenceKind[]) => kinds.includes("field-missing") || kinds.includes("field-type");
    for (const [other, claims] of byField) {
      const otherKinds = claims.map((c) => c.kind);
      if (other.startsWith(`${key}.`) && ends([kind, ...seen.map((c) => c.kind)]))
        throw refuse(claims[0]!.entry, n, path);
      if (key.startsWith(`${other}.`) && ends(otherKinds)) throw refuse(claims[0]!.entry, n, path);
    }
    byField.set(key, [...seen, { kind, entry: n }]);
  };
}

/** One answer's plan from the entries that apply to it; two entries that cannot both hold are refused. */
function planOf(entries: [number, ProfileEntry][], status: number): AnswerPlan {
  const plan: AnswerPlan = { status, body: null, removeHeaders: [], setHeaders: [], entries: [] };
  const claimField = fieldClaims(status);
  const others = new Map<string, number>();
  const claim = (key: string, n: number) => {
    const first = others.get(key);
    if (first !== undefined)
      throw new ProfileError(`entries ${first} and ${n} both change ${key} of the ${status} answer: keep one`, n);
    others.set(key, n);
  };
  for (const [n, e] of entries) {
    plan.entries.push(n);
    if (e.difference === "status") {
      claim("the status", n);
      plan.status = e.observed;
    } else if (e.difference === "header-missing" || e.difference === "header-added") {
      const h = e.header.toLowerCase();
      claim(`header ${h}`, n);
      if (e.difference === "header-missing") plan.removeHeaders.push(h);
      else plan.setHeaders.push([h, e.observed]);
    } else if (e.difference === "error-field") {
      claimField(`error.${e.field}`, e.difference, n);
      fieldPlan((plan.body ??= emptyBody()), parsePath(`error.${e.field}`)).plan.set = { value: e.observed };
    } else {
      claimField(e.path, e.difference, n);
      const { plan: f, parent, name } = fieldPlan((plan.body ??= emptyBody()), parsePath(e.path));
      const clash = (newName: string) =>
        parent.added.some(([k]) => k === newName) ||
        [...parent.fields.entries()].some(([k, p]) => k !== name && p.rename === newName);
      if (e.difference === "field-missing") f.remove = true;
      else if (e.difference === "field-type") f.type = e.observed;
      else if (e.difference === "field-renamed") {
        if (clash(e.observed)) throw new ProfileError(`${e.observed} would name two fields of the ${status} answer`, n);
        f.rename = e.observed;
      } else {
        parent.fields.delete(name);
        if (clash(name)) throw new ProfileError(`${name} would name two fields of the ${status} answer`, n);
        parent.added.push([name, e.observed]);
      }
    }
  }
  return plan;
}

/** An operation's path as the document writes it (`/extensions/{id}`), as the route table's pattern (`:id`). */
const patternOf = (path: string) => compilePattern(path.replace(/\{([^}]+)\}/g, ":$1"));

/** Checks every entry against `shapes` and compiles the profile; a ProfileError names the first entry at fault. */
export function compileProfile(profile: Profile, shapes: AnswerShapes): CompiledProfile {
  const byOperation = new Map<string, [number, ProfileEntry][]>();
  profile.entries.forEach((e, i) => {
    const n = i + 1;
    const answers = shapes[e.operation];
    if (!answers) {
      const [method, path] = e.operation.split(" ");
      const samePath = Object.keys(shapes).filter((o) => o.endsWith(` ${path}`));
      const hint =
        samePath.length > 0
          ? `; ${path} takes ${samePath.map((o) => o.split(" ")[0]).join(", ")}, not ${method}`
          : "; `ext openapi` lists the developer API's paths, written with {id} and {key}";
      throw new ProfileError(`entry ${n} (${describeEntry(e)}): no such operation of the developer API${hint}`, n);
    }
    const problem = checkEntry(e, answers, covered(answers, e.answer));
    if (problem) throw new ProfileError(`entry ${n} (${describeEntry(e)}): ${problem}`, n);
    byOperation.set(e.operation, [...(byOperation.get(e.operation) ?? []), [n, e]]);
  });
  const operations: OperationPlan[] = [];
  for (const [operation, entries] of byOperation) {
    const [method, path] = operation.split(" ") as [string, string];
    const answers = new Map<number, Map<string, AnswerPlan>>();
    for (const [statusText, shape] of Object.entries(shapes[operation]!)) {
      const status = Number(statusText);
      const codes = shape.codes ?? [];
      const applying = (code: string | null) =>
        entries.filter(
          ([, e]) => covered({ [statusText]: shape }, e.answer).length > 0 && (e.code === undefined || e.code === code),
        );
      const plans = new Map<string, AnswerPlan>();
      const anyCode = applying(null);
      // Plans per code only when some entry names a code of this status.
      const codeSpecific = codes.filter((c) => applying(c).length !== anyCode.length);
      try {
        if (anyCode.length > 0) plans.set("", planOf(anyCode, status));
        for (const c of codeSpecific) plans.set(c, planOf(applying(c), status));
      } catch (e) {
        if (e instanceof ProfileError && e.entry !== undefined)
          throw new ProfileError(
            `entry ${e.entry} (${describeEntry(profile.entries[e.entry - 1]!)}): ${e.message}`,
            e.entry,
          );
        throw e;
      }
      if (plans.size > 0) answers.set(status, plans);
    }
    operations.push({ operation, method, path: patternOf(path), answers });
  }
  return {
    profile,
    operations,
    plansFor(method, path, status) {
      const op = operations.find((o) => o.method === method && o.path.test(path));
      return op?.answers.get(status) ?? null;
    },
  };
}

/** The plan for an answer with error code `code` (null: not an error envelope). */
export function choosePlan(plans: Map<string, AnswerPlan>, code: string | null): AnswerPlan | null {
  return (code !== null ? plans.get(code) : undefined) ?? plans.get("") ?? null;
}
