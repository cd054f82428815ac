/**
 * The tools' one reader of answers, a middleware of every typed client the CLI and the deploy core make
 * (http.ts): what is not the answer a call expects is said once, clearly, here — never later as a TypeError
 * in the command that reads it, nor as "Body already used".
 *
 *  - a redirect: never followed (a credential would go where it points); said with its status and target;
 *  - a success that is an HTML page, or of a type the operation never answers: another server (api-error.ts);
 *  - a JSON success without the members the operation's answers always have (answer-members.generated.ts,
 *    from the OpenAPI document), an empty one, or no JSON at all: not the emulator's API;
 *  - a refusal: read as the API's envelope where it is one (api-error.ts says the rest, a control plane's 401
 *    with whether a token was sent: noted here).
 */
import type { ApiClient } from "../../client";
import { ANSWER_MEMBERS } from "./answer-members.generated";
import { describeForeign, describeNotTheApi, noteCredential } from "./api-error";
import { readAnswerText, responseOf, TransportError } from "./transport";

type Middleware = Parameters<ApiClient["use"]>[number];

/** A redirect answered to a call: its status and where it points (not followed). */
export class RedirectAnswerError extends TransportError {
  override name = "RedirectAnswerError";
  constructor(
    readonly url: string,
    readonly method: string,
    readonly status: number,
    readonly location: string,
  ) {
    const u = new URL(url);
    super(
      `${u.origin} answered ${method} ${u.pathname} with a redirect (${status} to ${location || "nowhere"}); redirects are not followed, so nothing was sent there. Is --target (or EXT_BASE_URL) the address \`ext serve\` printed?`,
    );
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function kindMatches(kind: string, value: unknown): boolean {
  switch (kind) {
    case "object":
      return isObject(value);
    case "array":
      return Array.isArray(value);
    case "object[]":
      return Array.isArray(value) && value.every(isObject);
    case "string":
    case "number":
    case "boolean":
      return typeof value === kind;
    default:
      return true;
  }
}

/** Why `value` (an answer's parsed JSON, or NOT_JSON) is not an answer of `operation` ("GET /developer/v1/extensions"), or null when it can be one. */
function shapeProblem(operation: string, value: unknown): string | null {
  if (value === NOT_JSON) return "not JSON";
  if (!isObject(value)) return "not a JSON object";
  const members = ANSWER_MEMBERS[operation];
  // An operation the document does not list: at least something, as every answer of the API has.
  if (!members) return Object.keys(value).length > 0 ? null : "an empty object";
  for (const [name, kind] of Object.entries(members)) {
    const [list, member] = name.split("[].");
    if (member === undefined) {
      if (!(name in value) || !kindMatches(kind, value[name])) return `no ${name} (${kind})`;
      continue;
    }
    // Listed before its items' members, so `list` is already known to be an array of objects.
    const items = value[list!] as Record<string, unknown>[];
    if (items.some((item) => !(member in item) || !kindMatches(kind, item[member])))
      return `an item of ${list} without ${member} (${kind})`;
  }
  return null;
}

const NOT_JSON = Symbol("not JSON");

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return NOT_JSON;
  }
}

export const answerReader: Middleware = {
  async onResponse({ request, response, schemaPath }) {
    noteCredential(response, request.headers.has("authorization") || request.headers.has("x-ext-session"));
    const url = response.url || request.url;
    if (response.status >= 300 && response.status < 400)
      throw new RedirectAnswerError(url, request.method, response.status, response.headers.get("location") ?? "");
    if (!response.ok || response.status === 204) return undefined;
    const contentType = response.headers.get("content-type") ?? "";
    const operation = `${request.method} ${schemaPath}`;
    const expectsJson = operation in ANSWER_MEMBERS;
    const isHtml = /text\/html/i.test(contentType);
    const isJson = /[/+]json\b/i.test(contentType);
    // A stream, an archive, a sound: the caller reads those as they are.
    if (!isHtml && !isJson && !expectsJson) return undefined;
    // Read once, at most MAX_READ_ANSWER_BYTES, and parsed once: the client is handed the text and the value.
    const body = await readAnswerText(response, request.method, url);
    const answer = {
      url,
      method: request.method,
      status: response.status,
      contentType,
      server: response.headers.get("server") ?? "",
      body,
    };
    if (isHtml || (!isJson && body.trim() !== "")) throw new Error(describeForeign(answer));
    const value = parsed(body);
    if (shapeProblem(operation, value) !== null) throw new Error(describeNotTheApi(answer));
    const headers = new Headers(response.headers);
    headers.delete("transfer-encoding");
    headers.set("content-length", String(Buffer.byteLength(body)));
    const read = responseOf(url, response.status, response.statusText, headers, new Response(body).body);
    // The client's own parse (response.json()) is this one.
    Object.defineProperty(read, "json", { value: async () => value });
    return read;
  },
};
