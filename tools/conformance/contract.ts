/**
 * The contract of one exchange, for traffic the parity tools did not write (the proxy): which spec endpoint
 * a request is, what is wrong with the request (a client bug), and what is wrong with the answer (a platform
 * or emulator difference). The answer rules are the conformance checks' own.
 */
import { listRule } from "./checks-extensions";
import { versionsRule } from "./checks-versions";
import { fieldProblems, isObject, parseJson, topLevel } from "./shape";
import { type Endpoint, EXTENSION_CREATED, EXTENSION_FULL, INSTALLS, VERSION_SUBMITTED } from "./spec";
import { type Expectation, problemsOf } from "./step";
import type { Exchange } from "./types";

const ID = "[^/]+";
const ROUTES: [Endpoint, RegExp][] = [
  ["GET /developer/v1/extensions", /^GET \/developer\/v1\/extensions$/],
  ["POST /developer/v1/extensions", /^POST \/developer\/v1\/extensions$/],
  ["GET /developer/v1/extensions/:id", new RegExp(`^GET /developer/v1/extensions/${ID}$`)],
  ["PATCH /developer/v1/extensions/:id", new RegExp(`^PATCH /developer/v1/extensions/${ID}$`)],
  ["DELETE /developer/v1/extensions/:id", new RegExp(`^DELETE /developer/v1/extensions/${ID}$`)],
  ["GET /developer/v1/extensions/:id/versions", new RegExp(`^GET /developer/v1/extensions/${ID}/versions$`)],
  ["POST /developer/v1/extensions/:id/versions", new RegExp(`^POST /developer/v1/extensions/${ID}/versions$`)],
  ["GET /developer/v1/extensions/:id/installs", new RegExp(`^GET /developer/v1/extensions/${ID}/installs$`)],
  ["GET /developer/v1/extensions/:id/secrets", new RegExp(`^GET /developer/v1/extensions/${ID}/secrets$`)],
  ["PUT /developer/v1/extensions/:id/secrets/:key", new RegExp(`^PUT /developer/v1/extensions/${ID}/secrets/${ID}$`)],
  [
    "DELETE /developer/v1/extensions/:id/secrets/:key",
    new RegExp(`^DELETE /developer/v1/extensions/${ID}/secrets/${ID}$`),
  ],
  ["GET /v1/developer/extensions/:id/limits", new RegExp(`^GET /v1/developer/extensions/${ID}/limits$`)],
];

/** The spec endpoint of a request, or null. */
export function endpointOf(method: string, pathname: string): Endpoint | null {
  const line = `${method} ${pathname}`;
  return ROUTES.find(([, re]) => re.test(line))?.[0] ?? null;
}

const EXTENSION_FIELDS = {
  name: "string",
  short_description: "string",
  description: "string",
  pricing: "object",
} as const;
const JSON_BODIES: Partial<Record<Endpoint, Record<string, string>>> = {
  "POST /developer/v1/extensions": EXTENSION_FIELDS,
  "PATCH /developer/v1/extensions/:id": { ...EXTENSION_FIELDS, visibility: "string" },
  "PUT /developer/v1/extensions/:id/secrets/:key": { value: "string" },
};

/** Problems of the request alone: what a client of the spec should not send. */
export function requestProblems(endpoint: Endpoint | null, headers: Headers, body: string | null): string[] {
  if (!endpoint) return ["the request is to no endpoint of the spec"];
  const out: string[] = [];
  const auth = headers.get("authorization");
  if (!auth) out.push("no Authorization header (every endpoint requires a Bearer key)");
  else if (!/^bearer\s+\S+$/i.test(auth)) out.push("the Authorization header is not Bearer <key>");
  const type = headers.get("content-type") ?? "";
  if (endpoint === "POST /developer/v1/extensions/:id/versions") {
    if (!type.startsWith("multipart/form-data")) out.push("a version submit must be multipart/form-data");
    return out;
  }
  const fields = JSON_BODIES[endpoint];
  if (!fields) return out;
  if (!type.startsWith("application/json")) out.push(`the body should be application/json, was ${type || "untyped"}`);
  const parsed = body === null ? { ok: false as const } : parseJson(body);
  if (!parsed.ok || !isObject(parsed.value)) return [...out, "the body is not a JSON object"];
  for (const [name, value] of Object.entries(parsed.value)) {
    const kind = fields[name];
    if (!kind) out.push(`field ${name} is not one the spec accepts here`);
    else if (kind === "object" ? !isObject(value) : typeof value !== kind)
      out.push(`field ${name} should be a ${kind}`);
  }
  return out;
}

const SUCCESS: Record<Endpoint, Expectation> = {
  "GET /developer/v1/extensions": { status: 200, describe: "{extensions: [...]}", body: listRule },
  "POST /developer/v1/extensions": {
    status: 201,
    describe: "{extension: {id, slug, name, status, createdAt}}",
    body: (b) => fieldProblems("extension", isObject(b) ? b.extension : undefined, EXTENSION_CREATED),
  },
  "GET /developer/v1/extensions/:id": {
    status: 200,
    describe: "the full object",
    body: (b) => fieldProblems("body", b, EXTENSION_FULL),
  },
  "PATCH /developer/v1/extensions/:id": {
    status: 200,
    describe: "the full object",
    body: (b) => fieldProblems("body", b, EXTENSION_FULL),
  },
  "DELETE /developer/v1/extensions/:id": { status: 204, describe: "no body", empty: true },
  "GET /developer/v1/extensions/:id/versions": { status: 200, describe: "{versions: [...]}", body: versionsRule },
  "POST /developer/v1/extensions/:id/versions": {
    status: 202,
    describe: "{version: {id, version, status, submittedAt}}",
    body: (b) => fieldProblems("version", isObject(b) ? b.version : undefined, VERSION_SUBMITTED),
  },
  "GET /developer/v1/extensions/:id/installs": {
    status: 200,
    describe: "{total, active, byVersion}",
    body: (b) => fieldProblems("body", b, INSTALLS),
  },
  "GET /developer/v1/extensions/:id/secrets": {
    status: 200,
    describe: "{keys: [string]}",
    body: (b) =>
      isObject(b) && Array.isArray(b.keys) && b.keys.every((k) => typeof k === "string")
        ? []
        : [`the body should be {keys: [string]}, got ${topLevel(b)}`],
  },
  "PUT /developer/v1/extensions/:id/secrets/:key": { status: 204, describe: "no body", empty: true },
  "DELETE /developer/v1/extensions/:id/secrets/:key": { status: 204, describe: "no body", empty: true },
  "GET /v1/developer/extensions/:id/limits": {
    status: 200,
    describe: "a JSON object",
    body: (b) => (isObject(b) ? [] : [`the body should be a JSON object, got ${topLevel(b)}`]),
  },
};

/**
 * Problems of the answer: an error must be the envelope with the spec's code for its status; any other
 * status that is not an error is held to the endpoint's success answer (a 200 where the spec says 201 is
 * a difference).
 */
export function answerProblems(endpoint: Endpoint | null, exchange: Exchange): string[] {
  const r = exchange.response;
  if (!r) return [];
  if (r.status >= 400) return problemsOf(exchange, { status: r.status, describe: "an error envelope", error: {} });
  if (!endpoint) return [];
  return problemsOf(exchange, SUCCESS[endpoint]);
}

/**
 * Where the answer departs from a choice ext made where the spec says "not shown" (docs/behaviour.md): not
 * a spec difference, but where a test written against ext would see something else.
 */
export function choiceProblems(endpoint: Endpoint | null, exchange: Exchange): string[] {
  const r = exchange.response;
  if (!r || !endpoint) return [];
  const out: string[] = [];
  if (r.status === 401 && !/^Bearer\b/.test(r.headers["www-authenticate"] ?? ""))
    out.push("a 401 without WWW-Authenticate: Bearer (ext sends it)");
  if (r.status !== 401 && r.status < 500 && !("x-ratelimit-limit" in r.headers))
    out.push("no X-RateLimit-Limit/-Remaining/-Reset headers (ext sends them)");
  const parsed = parseJson(r.body);
  const body = parsed.ok ? parsed.value : undefined;
  const created =
    endpoint === "POST /developer/v1/extensions" && isObject(body) && isObject(body.extension) ? body.extension : null;
  if (created && typeof created.id === "string" && !/^ext_[0-9A-Za-z]{26}$/.test(created.id))
    out.push("an extension id that is not ext_ + 26 characters (ext's format)");
  if (created && typeof created.createdAt === "string" && !/\.\d{3}Z$/.test(created.createdAt))
    out.push("a timestamp without milliseconds (ext sends YYYY-MM-DDTHH:MM:SS.sssZ)");
  return out;
}
