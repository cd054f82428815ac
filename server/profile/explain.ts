/**
 * Profile entries in words, naming both sides: what the platform does and what ext (the spec) does. Used by
 * `ext serve --explain`, the banner, /_emulator/state, and the reports of conformance and the proxy.
 */
import { answerShapes } from "./answer-shapes.generated";
import type { LoadedProfile } from "./load";
import type { ActiveProfile, ProfileEntry } from "./model";
import type { AnswerShapes } from "./shapes";
import { parsePath, shapeAt } from "./shapes";

const KNOWN_HEADER_NAMES = new Map(
  ["WWW-Authenticate", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"].map((h) => [
    h.toLowerCase(),
    h,
  ]),
);

/** Header names as people write them: x-ratelimit-limit → X-RateLimit-Limit. */
export function headerName(h: string): string {
  const lower = h.toLowerCase();
  return KNOWN_HEADER_NAMES.get(lower) ?? lower.replace(/(^|-)([a-z])/g, (_, d, c) => d + c.toUpperCase());
}

const json = (v: unknown) => {
  const s = JSON.stringify(v);
  return s.length > 80 ? `${s.slice(0, 77)}…` : s;
};

/** "201", "404 extension_not_found", "error answers", "success answers". */
export function answerWords(e: Pick<ProfileEntry, "answer" | "code">): string {
  const base = typeof e.answer === "number" ? String(e.answer) : `${e.answer} answers`;
  return e.code ? `${base} ${e.code}` : base;
}

function extTypeAt(shapes: AnswerShapes, e: Extract<ProfileEntry, { path: string }>): string | null {
  const answers = shapes[e.operation];
  const status = typeof e.answer === "number" ? String(e.answer) : Object.keys(answers ?? {})[0];
  const at = status ? shapeAt(answers?.[status]?.body ?? null, parsePath(e.path)) : null;
  return at?.ok && at.shape ? at.shape.types.join(" or ") : null;
}

function extCode(shapes: AnswerShapes, e: ProfileEntry): string | null {
  if (e.code) return e.code;
  if (typeof e.answer !== "number") return null;
  const codes = shapes[e.operation]?.[String(e.answer)]?.codes ?? [];
  return codes.length === 1 ? codes[0]! : null;
}

/** What the entry changes, in words, without the operation: "keys is sent as names (ext's field is keys)". */
export function changeWords(e: ProfileEntry, shapes: AnswerShapes = answerShapes()): string {
  switch (e.difference) {
    case "status":
      return `the status is ${e.observed}: ext's (the spec's) is ${e.answer}`;
    case "field-missing":
      return `${e.path} is left out: ext sends it`;
    case "field-renamed": {
      const steps = e.path.split(".");
      steps[steps.length - 1] = e.observed;
      return `${e.path} is sent as ${steps.join(".")}: ext's name for it is ${e.path.split(".").at(-1)}`;
    }
    case "field-added":
      return `${e.path} is added, ${json(e.observed)}: ext's answer has no such field`;
    case "field-type": {
      const ext = extTypeAt(shapes, e);
      const example = e.example === undefined ? "" : ` (${json(e.example)})`;
      return `${e.path} is ${article(e.observed)}${example}: ext's is ${ext ? article(ext) : "another type"}`;
    }
    case "error-field": {
      if (e.field === "code") {
        const ext = extCode(shapes, e);
        return `error.code ${e.observed} is not the spec's code for ${e.answer}${ext ? `: the spec's is \`${ext}\`` : ""}`;
      }
      if (e.field === "status") return `error.status is ${e.observed}: ext's is the HTTP status`;
      return `error.message is ${json(e.observed)}: ext words its own`;
    }
    case "header-missing":
      return `no ${headerName(e.header)} header: ext sends one`;
    case "header-added": {
      const sends =
        typeof e.answer === "number" &&
        shapes[e.operation]?.[String(e.answer)]?.headers.includes(e.header.toLowerCase());
      return `${headerName(e.header)}: ${e.observed}${sends ? " (ext sends its own value)" : ": ext sends no such header"}`;
    }
  }
}

function article(type: string): string {
  const words: Record<string, string> = {
    string: "a string",
    integer: "an integer",
    number: "a number",
    boolean: "a boolean",
    null: "null",
    object: "an object",
    array: "an array",
  };
  return type
    .split(" or ")
    .map((t) => words[t] ?? t)
    .join(" or ");
}

/** One line per entry: "GET /developer/v1/extensions/{id}/secrets 200: keys is sent as names: …". */
export function explainEntry(e: ProfileEntry, shapes: AnswerShapes = answerShapes()): string {
  return `${e.operation} ${answerWords(e)}: ${changeWords(e, shapes)}`;
}

/** Where an entry was seen, in a few words: "conformance check secrets.list, https://…, 2026-…". */
export function evidenceWords(e: ProfileEntry): string {
  const ev = e.evidence;
  if (!ev) return "written by hand";
  const what = ev.check ? `check ${ev.check}` : ev.exchange ? `exchange ${ev.exchange}` : ev.source;
  return [
    `${ev.source === "hand" ? "by hand" : `${ev.source}`} ${what === ev.source ? "" : what}`.trim(),
    ev.target,
    ev.at,
  ]
    .filter(Boolean)
    .join(", ");
}

/** The active profile as the control plane shows it. */
export function activeProfileOf(loaded: LoadedProfile): ActiveProfile {
  const { profile } = loaded.compiled;
  return {
    source: loaded.source,
    target: profile.target ?? null,
    observedAt: profile.observedAt ?? null,
    entries: profile.entries.map((e) => ({
      operation: e.operation,
      answer: answerWords(e),
      difference: e.difference,
      change: changeWords(e),
      evidence: evidenceWords(e),
    })),
  };
}
