/**
 * What a request carries from the pre-routing step (server/http/pre-routing.ts) to its answer, and the only place
 * that holds it: its path and part of the URL space, when it began, the developer-API principal the gate
 * authenticated, the headers every answer to it carries (the rate window's), the JSON text the body reader read,
 * the files it made for itself alone (an upload's temporary file, a staged export archive). Kept on the Request
 * under a symbol only this module holds (`CONTEXT`, below), so it lives exactly as long as its request.
 *
 * `answers` is the one step after the handler (a global mapResponse hook: the one onError returns the error
 * envelope as a value, so success and error answers alike pass through it before they are sent). There:
 *  - every answer is made once, with its headers: a JSON value (a route's body, the error envelope) becomes its
 *    Response here, with the status and headers set while it was served and the request's own (the rate
 *    window's), and so does JSON a route holds serialized already (`SerializedJson`, the list's); a handler
 *    that makes its own Response puts them on it itself (`madeAnswer`). Either way the
 *    framework is left nothing to merge and sends the Response as it is (its fast path). Every answer gets the
 *    security headers here (ANSWER_SECURITY_HEADERS: nosniff and a policy that runs nothing), after any profile
 *    change, so no route, error or profile can send one without them; an answer made by `madeAnswer` has them
 *    from its template, and the context remembers it, so nothing is checked on it or read back from it;
 *  - every answer is reported to the observers (the request log, the start-up trace);
 *  - the request's temporary files are removed: it is their one owner, so whatever happened — a refusal while
 *    reading, a failed check, a success that moved the file away — nothing it made outlives its answer (and a
 *    process that dies first leaves them to the blob store's sweep at start);
 *  - a body nobody read (an answer given before it: a 401, a 404, a 415) is read and dropped as it arrives, up
 *    to EARLY_ANSWER_DRAIN_BYTES, while the answer goes out: a client still sending it reads the answer instead
 *    of a broken pipe, and one that waits for the answer before sending gets it at once. Past that bound (or
 *    announced past it) the connection is closed.
 */
import { rmSync } from "node:fs";
import { Elysia, ElysiaCustomStatusResponse, StatusMap } from "elysia";
import type { Principal } from "../auth/service";
import type { RateHeaders } from "../ratelimit/limiter";
import {
  ANSWER_SECURITY_HEADERS,
  type AnswerTemplate,
  answerHeadersTemplate,
  headersFrom,
  JSON_MEDIA_TYPE,
  secured,
  secureHeaders,
} from "./answer-headers";
import type { Plane } from "./paths";

export interface RequestContext {
  /** The URL's path, without the query string, as the router reads it (server/http/paths.ts). */
  readonly path: string;
  readonly plane: Plane;
  /** `performance.now()` at arrival: durations are machine time, whatever the emulator clock says. */
  readonly startedMs: number;
  /** The emulator clock at arrival. */
  readonly atMs: number;
  /** The account behind a developer-API key, once the gate has authenticated it. */
  principal: Principal | null;
  /** Headers every answer to this request carries (the developer API's rate window), or null. */
  answerHeaders: Readonly<Record<string, string>> | Readonly<RateHeaders> | null;
  /** The text of a JSON body the body reader read (the request log keeps small ones). */
  jsonBodyText: string | undefined;
  /** Set by the pre-routing once the control plane's gate let the caller in; a control-plane route runs only then. */
  admin: boolean;
  /** The folder an uploaded export archive was staged in (`POST /_emulator/seed`), for the loader. */
  stagedExportDir: string | undefined;
  /** Files and folders made for this request alone, removed before its answer is sent (`temporaryOf`). */
  readonly temporary: string[];
  /** The fault rule holding this request (server/http/pre-routing.ts), until the app handles it again; else null. */
  heldFault: { error: Error | null } | null;
  /** The answer a handler made with every header it carries (`madeAnswer`), and those headers; else null. */
  madeAnswer: Response | null;
  madeHeaders: Headers | null;
}

/** One answer of the app, reported before it is sent. */
export interface Answer {
  request: Request;
  context: RequestContext;
  status: number;
  /** What the app answered: a Response, or a value the framework serializes (a JSON body, an error envelope). */
  value: unknown;
  /** Headers set while the request was served (rate-limit headers, an error's own headers). */
  headers: Record<string, unknown>;
}

/** Hears of an answer before it is sent; a promise it returns holds the answer back until it settles. */
export type AnswerObserver = (answer: Answer) => Promise<void> | void;

/**
 * A request's context is kept on the Request itself, under a symbol no other module holds: setting a property is a
 * fraction of a WeakMap entry's cost (the entry was 6.6% of the list's CPU under load; bench/results/tricks.md),
 * and the context goes with its request to the garbage collector all the same.
 */
const CONTEXT = Symbol("request context");
type CarryingContext = Request & { [CONTEXT]?: RequestContext };
const contextOf = (request: Request) => (request as CarryingContext)[CONTEXT];

/** The context of a request the pre-routing step let through its URL check (every other one is refused there). */
export function requestContextOf(request: Request): RequestContext | undefined {
  return contextOf(request);
}

/** Opened by the pre-routing step, once per request. */
export function openRequestContext(request: Request, path: string, plane: Plane, atMs: number): RequestContext {
  const context: RequestContext = {
    path,
    plane,
    startedMs: performance.now(),
    atMs,
    principal: null,
    answerHeaders: null,
    jsonBodyText: undefined,
    admin: false,
    stagedExportDir: undefined,
    temporary: [],
    heldFault: null,
    madeAnswer: null,
    madeHeaders: null,
  };
  (request as CarryingContext)[CONTEXT] = context;
  return context;
}

/**
 * An answer a handler makes itself (server/http/responses.ts), with every header it carries: `template` (made once
 * with answerHeadersTemplate: the security headers and the handler's own), and the request's over it (the rate
 * window's) when it has any — a Response copies the Headers it is given, so a template with nothing to add is
 * given as it is. The context remembers the answer and its headers: the answer step has nothing to add to it or
 * check on it, and the request log reads its headers from there rather than back from the Response.
 */
export function madeAnswer(request: Request, body: string | null, template: AnswerTemplate, status = 200): Response {
  const context = contextOf(request);
  const extra = context?.answerHeaders ?? null;
  const headers = extra ? headersFrom(template, extra) : template;
  const answer = new Response(body, { status, headers });
  if (context) {
    context.madeAnswer = answer;
    context.madeHeaders = headers;
  }
  return answer;
}

/** The headers an answer that is a Response went out with (`madeAnswer`'s, known without reading it back). */
export function headersOfAnswer(context: RequestContext, answer: Response): Headers {
  return answer === context.madeAnswer ? context.madeHeaders! : answer.headers;
}

/**
 * Makes the request the owner of `path` (a file or folder under the blob store's tmp/): it is removed before
 * the request's answer is sent, whatever the answer. Returns `path`.
 */
export function temporaryOf(request: Request, path: string): string {
  const context = contextOf(request);
  if (!context) throw new Error("a temporary file needs the request's context (the pre-routing step opens it)");
  context.temporary.push(path);
  return path;
}

function removeTemporary(context: RequestContext): void {
  for (const path of context.temporary.splice(0)) rmSync(path, { recursive: true, force: true });
}

function statusOf(value: unknown, status: number | string | undefined): number {
  if (value instanceof Response) return value.status;
  if (value instanceof ElysiaCustomStatusResponse) return value.code;
  if (typeof status === "number") return status;
  return (status && StatusMap[status as keyof typeof StatusMap]) || 200;
}

/**
 * How much of a body nobody read is read (and dropped) after an early answer: more than a JSON body refused past
 * its 1 MiB cap or a small upload, little enough that a refused 50 MB upload is not read through (its connection
 * is closed).
 */
export const EARLY_ANSWER_DRAIN_BYTES = 4 * 1024 * 1024;

/** A body the handler never touched (GET and HEAD carry none). */
const untouched = (request: Request) =>
  request.method !== "GET" && request.method !== "HEAD" && !request.bodyUsed && request.body !== null;

/**
 * For an answer given before its request's body was read: the body is read and dropped as it arrives, so the
 * connection stays usable and a client still sending finishes and reads the answer. A body announced past the
 * bound is not read: the answer closes the connection. One that turns out longer than announced, or a chunked
 * one past the bound, is cancelled there, which closes it too.
 */
function dropUnreadBody(request: Request): "close" | undefined {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > EARLY_ANSWER_DRAIN_BYTES) return "close";
  const body = request.body!;
  void (async () => {
    let read = 0;
    try {
      for await (const chunk of body) if ((read += chunk.byteLength) > EARLY_ANSWER_DRAIN_BYTES) return;
    } catch {
      // The client went away mid-body: nothing is left to read.
    }
  })();
  return undefined;
}

/** A value the framework would serialize as JSON: a plain object or an array. */
const isJsonValue = (value: unknown): value is object =>
  Array.isArray(value) ||
  (typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype);

/** The answer to a JSON value, made with the response state's status and headers, which it then leaves empty. */
function jsonAnswer(value: object, set: { status?: number | string; headers: Record<string, unknown> }): Response {
  const answer = Response.json(value, {
    status: statusOf(value, set.status),
    headers: secureHeaders(set.headers),
  });
  set.status = 200;
  set.headers = Object.create(null);
  return answer;
}

/**
 * Every answer, with the security headers (server/http/answer-headers.ts): a JSON value's made here, a Response
 * given those it lacks, anything else left to the framework with them set.
 */
function made(value: unknown, state: State): unknown {
  if (isJsonValue(value)) return jsonAnswer(value, state);
  if (value instanceof Response) return secured(value);
  Object.assign(state.headers, ANSWER_SECURITY_HEADERS);
  return value;
}

/** An answer as a platform profile changes it (server/profile/apply.ts): its status, headers and body. */
export interface PlainAnswer {
  status: number;
  headers: Headers;
  /** null: no body. */
  body: string | null;
}

/**
 * A platform profile's change of the app's answers (server/profile/apply.ts): for an answer (its method, path and
 * ext's status), the change to make, or null where the profile names nothing. Made here, before the answer is
 * reported, so the request log shows what the client received.
 */
export type AnswerChanges = (
  method: string,
  path: string,
  status: number,
) => ((answer: PlainAnswer) => PlainAnswer) | null;

type State = { status?: number | string; headers: Record<string, unknown> };

/** Tells every observer of the answer; what they return holds it back until it settles. */
function report(observers: readonly AnswerObserver[], answer: Answer): Promise<unknown> | null {
  let pending: Promise<unknown>[] | null = null;
  for (const observe of observers) {
    const wait = observe(answer);
    if (wait) (pending ??= []).push(wait);
  }
  return pending ? Promise.all(pending) : null;
}

/**
 * A 200 whose JSON body a route already holds serialized (the extension list, from its service's cache): the answer
 * step makes its Response, once, with the JSON type, the security headers and the request's own (`madeAnswer`), so
 * nothing serializes it again. Always a 200, whatever the response state says; its route declares the 200 with
 * `readyAnswer` (server/http/responses.ts), so Elysia checks no schema against it.
 */
export class SerializedJson {
  constructor(readonly text: string) {}
}

const JSON_TEMPLATE = answerHeadersTemplate({ "content-type": JSON_MEDIA_TYPE });

/** The answer to a request that has its context: reported to the observers, then made. */
function answered(
  request: Request,
  responseValue: unknown,
  state: State,
  context: RequestContext,
  observers: readonly AnswerObserver[],
  changes: AnswerChanges | null,
): Response | Promise<Response> {
  const value =
    responseValue instanceof SerializedJson ? madeAnswer(request, responseValue.text, JSON_TEMPLATE) : responseValue;
  if (context.answerHeaders && !(value instanceof Response)) Object.assign(state.headers, context.answerHeaders);
  const status = statusOf(value, state.status);
  const change = changes?.(request.method, context.path, status);
  if (change && (value instanceof Response || isJsonValue(value)))
    return changedAnswer(change, value, status, state, request, context, observers);
  const pending = report(observers, { request, context, status, value, headers: state.headers });
  // After the observers, one of which may have begun to read a small body for the log.
  if (untouched(request) && dropUnreadBody(request) === "close") state.headers.connection = "close";
  // An answer made with its headers (madeAnswer) goes as it is; every other one is made here.
  const sent = (value === context.madeAnswer ? value : made(value, state)) as Response;
  return pending ? pending.then(() => sent) : sent;
}

/**
 * The answer step. Its hook returns a variable, never a call, and ends on a statement Elysia's reading of the
 * source cannot take for a wait: Elysia awaits a hook whose source returns the result of a call, and a read's
 * answer would then leave the app as a Promise (server/http/pre-routing.ts; test/http/sync-answers.test.ts).
 */
export function answers(observers: readonly AnswerObserver[], changes: AnswerChanges | null = null) {
  return new Elysia({ name: "answers" }).mapResponse({ as: "global" }, ({ request, responseValue, set }) => {
    // The value goes back made, whatever it is (the hook's type names only a Response): a hook that returns
    // nothing leaves an error answered from onRequest without its body.
    const context = contextOf(request);
    let answer: Response | Promise<Response>;
    try {
      answer = context
        ? answered(request, responseValue, set as State, context, observers, changes)
        : // A request refused before its context was opened (a malformed request target) is answered all the same.
          (made(responseValue, set as State) as Response);
    } finally {
      // Whatever happened, nothing the request made for itself outlives its answer.
      if (context && context.temporary.length > 0) removeTemporary(context);
    }
    return answer;
  });
}

/** An answer a profile changes: made as the app made it, changed, then reported and sent as changed. */
async function changedAnswer(
  change: (answer: PlainAnswer) => PlainAnswer,
  value: Response | object,
  status: number,
  state: State,
  request: Request,
  context: RequestContext,
  observers: readonly AnswerObserver[],
): Promise<Response> {
  const made =
    value instanceof Response
      ? { status, headers: value.headers, body: value.body === null ? null : await value.text() }
      : { status, headers: jsonHeaders(state.headers), body: JSON.stringify(value) };
  state.status = 200;
  state.headers = Object.create(null);
  const changed = change(made);
  const sent = new Response(changed.body, { status: changed.status, headers: changed.headers });
  const shown = jsonOf(changed.body) ?? sent;
  await report(observers, {
    request,
    context,
    status: changed.status,
    value: shown,
    headers: Object.fromEntries(changed.headers),
  });
  if (untouched(request) && dropUnreadBody(request) === "close") sent.headers.set("connection", "close");
  return secured(sent);
}

function jsonHeaders(set: Record<string, unknown>): Headers {
  const headers = new Headers(set as Record<string, string>);
  if (!headers.has("content-type")) headers.set("content-type", JSON_MEDIA_TYPE);
  return headers;
}

/** A body's JSON object or array (what the request log reads an answer's code from), or null. */
function jsonOf(body: string | null): object | null {
  if (!body) return null;
  try {
    const value: unknown = JSON.parse(body);
    return typeof value === "object" && value !== null ? value : null;
  } catch {
    return null;
  }
}
