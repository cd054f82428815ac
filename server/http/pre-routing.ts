/**
 * The one step every request takes before routing, in one `onRequest` hook that reads the path once (as the
 * router reads it: server/http/paths.ts) into the request's context and then asks, in order:
 *  1. the URL and Host check: an absolute URL with a well-formed host, a well-formed Host header
 *     (server/http/request-url.ts) — so the path read here is the path the router routes on;
 *  2. the fault rules (developer-API paths only): an injected fault stands in for any answer, a 401 or 429
 *     included, so it comes before the gates. A rule's latency holds the request: once it is over, the app
 *     handles it again (`handleAgain`): the URL check again, then its fault's error if it has one, else step 3 on;
 *  3. the Host gate (DNS rebinding; server/http/host-check.ts), on every route, when the bind asks for it;
 *  4. the control plane's gate (/_emulator) or the developer API's (key, rate window, JSON body cap), each for
 *     its part of the URL space;
 *  5. the malformed-path guard: a path whose percent-encoding is broken names nothing (after the gates: who
 *     may call comes first).
 * A refusal is thrown (the one `onError` answers it, the answer step reports it); nothing here reads a body.
 *
 * The hook is synchronous, and returns a held request's answer as a Promise only when a rule holds it: Elysia
 * then composes the app's handler without an await, and an answer made at once leaves it at once (the list's
 * 200 among them; test/http/sync-answers.test.ts). Elysia decides whether to await a hook from its source
 * text — a function that returns the result of a call is awaited — so the hook returns a variable, never a call.
 */
import { Elysia } from "elysia";
import type { Clock } from "../base/clock";
import { errors } from "../errors/catalog";
import { isWellFormedPath } from "./path-encoding";
import { pathOf, planeOf } from "./paths";
import { openRequestContext, type RequestContext, requestContextOf } from "./request-context";
import { requestTarget } from "./request-url";

/** An injected fault: hold the request `latencyMs`, then answer `error` (or proceed when it is null). */
export interface InjectedFault {
  latencyMs: number;
  error: Error | null;
}

export interface FaultSource {
  /** Rules that can still fire: with none, the step costs one read. */
  readonly armedCount: number;
  /** The fault for this request, counted as fired; null when no rule fires. */
  decide(method: string, path: string): InjectedFault | null;
  /** Waits a rule's latency, cut short when the client goes away. */
  delay(ms: number, client: AbortSignal): Promise<void>;
}

export interface PreRoutingSteps {
  clock: Clock;
  faults: FaultSource;
  /** Refuses a request addressed by a name this server does not answer to; null when the bind needs no check. */
  hostGate: ((host: string) => void) | null;
  /** The control plane's gate: refuses, or lets the request through (its context is then marked admin). */
  controlGate: (request: Request, host: string) => void;
  /** The developer API's gate: refuses, or puts the principal and the rate window's headers on the context. */
  developerGate: (request: Request, context: RequestContext) => void;
  /** Handles a request again through the whole app (its `handle`): a held request, once its latency is over. */
  handleAgain: (request: Request) => Promise<Response>;
}

export function preRouting(steps: PreRoutingSteps) {
  const { clock, faults, hostGate, controlGate, developerGate, handleAgain } = steps;
  const gates = (request: Request, host: string, context: RequestContext) => {
    if (hostGate) hostGate(host);
    if (context.plane === "control") {
      controlGate(request, host);
      context.admin = true;
    } else if (context.plane === "api") developerGate(request, context);
    if (!isWellFormedPath(context.path)) throw errors.malformedPath(context.path);
  };
  /** The answer to a request a rule holds: the app's, once the latency is over (or the client has gone). */
  const hold = (request: Request, fault: InjectedFault): Promise<Response> =>
    faults.delay(fault.latencyMs, request.signal).then(() => handleAgain(request));
  return new Elysia({ name: "pre-routing" }).onRequest(({ request }) => {
    const url = request.url;
    const target = requestTarget(request, url);
    if ("problem" in target) throw errors.badRequestTarget(target.problem);
    // A held request handled again comes back with the context of its first pass and the fault decided there.
    let context = requestContextOf(request);
    const heldBy = context?.heldFault ?? null;
    let answer: Promise<Response> | undefined;
    if (context === undefined || heldBy === null) {
      const path = pathOf(url);
      context = openRequestContext(request, path, planeOf(path), clock.nowMs());
      const fault = faults.armedCount > 0 && context.plane === "api" ? faults.decide(request.method, path) : null;
      if (fault && fault.latencyMs > 0) {
        answer = hold(request, fault);
        // Its error, if it has one, is answered when the request is handled again.
        context.heldFault = fault;
      } else if (fault?.error) throw fault.error;
    } else {
      context.heldFault = null;
      if (heldBy.error) throw heldBy.error;
    }
    if (answer === undefined) gates(request, target.host, context);
    // The one return, and the last statement: minified, nothing follows it (see the top of this file).
    return answer;
  });
}
