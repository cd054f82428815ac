/**
 * What a request carries from one lifecycle hook to the next, and the only place that holds it: when it
 * began, the developer-API principal the gate authenticated, the JSON text the body reader read. Kept in a
 * WeakMap keyed by the Request, so nothing is added to the framework's or the platform's objects and an
 * entry lives exactly as long as its request.
 *
 * `requestLifecycle` opens the context (the first onRequest hook) and reports every answer to its
 * observers (the request log, the start-up trace) from one global mapResponse hook: the one onError returns
 * the error envelope as a value, so success and error answers alike pass through mapResponse before they
 * are sent.
 */
import { Elysia, ElysiaCustomStatusResponse, StatusMap } from "elysia";
import type { Principal } from "../auth/service";
import type { Clock } from "../clock";
import { pathOf } from "./paths";

export interface RequestContext {
  /** The URL's path, without the query string. */
  readonly path: string;
  /** `performance.now()` at arrival: durations are machine time, whatever the emulator clock says. */
  readonly startedMs: number;
  /** The emulator clock at arrival. */
  readonly atMs: number;
  /** The account behind a developer-API key, once the gate has authenticated it. */
  principal: Principal | null;
  /** The text of a JSON body the body reader read (the request log keeps small ones). */
  jsonBodyText: string | undefined;
  /** Set by the control plane's gate once the caller has proved itself; a control-plane route runs only then. */
  admin: boolean;
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

const contexts = new WeakMap<Request, RequestContext>();

/** The context of a request that went through `requestLifecycle` (every request the app serves does). */
export function requestContextOf(request: Request): RequestContext | undefined {
  return contexts.get(request);
}

function openRequestContext(request: Request, path: string, atMs: number): RequestContext {
  const context: RequestContext = {
    path,
    startedMs: performance.now(),
    atMs,
    principal: null,
    jsonBodyText: undefined,
    admin: false,
  };
  contexts.set(request, context);
  return context;
}

function statusOf(value: unknown, status: number | string | undefined): number {
  if (value instanceof Response) return value.status;
  if (value instanceof ElysiaCustomStatusResponse) return value.code;
  if (typeof status === "number") return status;
  return (status && StatusMap[status as keyof typeof StatusMap]) || 200;
}

/** Registered first, so that every later hook (faults, gates, routes, the error handler) finds the context. */
export function requestLifecycle(clock: Clock, observers: AnswerObserver[]) {
  return new Elysia({ name: "request-lifecycle" })
    .onRequest(({ request }) => {
      openRequestContext(request, pathOf(request.url), clock.nowMs());
    })
    .mapResponse({ as: "global" }, ({ request, responseValue, set }) => {
      // The value goes back unchanged, whatever it is (the hook's type names only a Response): a hook that
      // returns nothing leaves an error answered from onRequest without its body.
      const value = responseValue as Response;
      const context = contexts.get(request);
      if (!context || observers.length === 0) return value;
      const answer: Answer = {
        request,
        context,
        status: statusOf(responseValue, set.status),
        value: responseValue,
        headers: set.headers as Record<string, unknown>,
      };
      let pending: Promise<void>[] | null = null;
      for (const observe of observers) {
        const wait = observe(answer);
        if (wait) (pending ??= []).push(wait);
      }
      return pending ? Promise.all(pending).then(() => value) : value;
    });
}
