/**
 * A compiled profile applied to answers ext has already made: the status, the JSON body and the headers take
 * the platform's observed shape; what the answer says (which extension, which error) stays ext's. Pure: the
 * server's answer step (server/http/request-context.ts) asks `answerChanges` for each answer it is about to send,
 * a route's or an error's alike, when a profile is active.
 */

import type { PlainAnswer } from "../http/request-context";
import { type AnswerPlan, type BodyPlan, type CompiledProfile, choosePlan, isError } from "./compile";
import type { JsonType } from "./model";
import { jsonTypeOf } from "./shapes";

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** ext's value as the platform's type (compile checked that a rule exists for every type ext sends there). */
function convert(value: unknown, to: JsonType): unknown {
  if (to === "null") return null;
  if (to === "string" && (typeof value === "number" || typeof value === "boolean")) return String(value);
  return value;
}

function applyBody(plan: BodyPlan, value: unknown): unknown {
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [name, v] of Object.entries(value)) {
    const f = plan.fields.get(name);
    if (!f) {
      out[name] = v;
      continue;
    }
    if (f.remove) continue;
    let w = v;
    if (f.child) w = applyBody(f.child, w);
    if (f.each && Array.isArray(w)) w = w.map((item) => applyBody(f.each!, item));
    if (f.set) w = f.set.value;
    if (f.type && jsonTypeOf(w) !== f.type) w = convert(w, f.type);
    out[f.rename ?? name] = w;
  }
  for (const [name, v] of plan.added) out[name] = structuredClone(v);
  return out;
}

const NO_BODY = new Set([204, 205, 304]);

function parse(text: string | null): { ok: true; value: unknown } | { ok: false } {
  if (text === null || text === "") return { ok: false };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** The error envelope's code of a body, or null. */
export function errorCodeOf(body: string | null): string | null {
  const parsed = parse(body);
  if (!parsed.ok || !isObject(parsed.value) || !isObject(parsed.value.error)) return null;
  return typeof parsed.value.error.code === "string" ? parsed.value.error.code : null;
}

/** One answer changed as `plan` says. */
export function applyPlan(plan: AnswerPlan, answer: PlainAnswer): PlainAnswer {
  const headers = new Headers(answer.headers);
  let body = answer.body;
  const moved = plan.status !== answer.status;
  // An error envelope's status is the HTTP status (spec §7): it moves with it, unless an entry says otherwise.
  const syncStatus = moved && isError(answer.status);
  if (plan.body || syncStatus) {
    const parsed = parse(body);
    if (parsed.ok) {
      let value = parsed.value;
      if (syncStatus && isObject(value) && isObject(value.error) && typeof value.error.status === "number")
        value = { ...value, error: { ...value.error, status: plan.status } };
      if (plan.body) value = applyBody(plan.body, value);
      body = JSON.stringify(value);
    }
  }
  if (NO_BODY.has(plan.status)) body = null;
  else if (body === null) body = "";
  if (body !== answer.body) headers.delete("content-length");
  for (const h of plan.removeHeaders) headers.delete(h);
  for (const [h, v] of plan.setHeaders) headers.set(h, v);
  return { status: plan.status, headers, body };
}

/**
 * The profile's changes for the app's answers: for one answer (its method, path and ext's status), the change
 * to make to it, or null where the profile names nothing for it (then it is sent untouched, as made).
 */
export function answerChanges(profile: CompiledProfile) {
  return (method: string, path: string, status: number): ((answer: PlainAnswer) => PlainAnswer) | null => {
    const plans = profile.plansFor(method, path, status);
    if (!plans) return null;
    return (answer) => {
      const plan = choosePlan(plans, plans.size === 1 && plans.has("") ? null : errorCodeOf(answer.body));
      return plan ? applyPlan(plan, answer) : answer;
    };
  };
}
