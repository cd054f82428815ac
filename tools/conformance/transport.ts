/**
 * How the conformance run talks to a target: the generated client (client/) for the calls it describes,
 * and `raw()` for what it cannot send (no key, a malformed header, a wrong Content-Type). Both go through
 * one recording fetch, so every exchange is kept — redacted — for the report, and that goes through the
 * tools' one transport (tools/calls/transport.ts: the timeout, no redirect followed, the target held to its
 * first answer). With `dryRun` nothing is sent: each request is recorded and answered locally with a 299 and
 * no body.
 */
import { type ApiClient, createApiClient } from "../../client/index";
import { type Transport as Outbound, readAnswerText } from "../calls/transport";
import { LONGEST_WAIT_SECONDS, type RateBudget, RateLimitStop } from "./rate-budget";
import type { Redactor } from "./redact";
import type { Exchange } from "./types";

/** Bodies over this are recorded cut (a report is for reading, and an answer may be huge). */
const RECORDED_BODY_MAX = 64 * 1024;
export const DRY_RUN_STATUS = 299;

export interface RawRequest {
  method: string;
  /** Path from the origin, e.g. /developer/v1/extensions. */
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface Transport {
  readonly origin: string;
  /** The generated client, authenticated with `key`. */
  client(key: string): ApiClient;
  raw(request: RawRequest): Promise<Response>;
  /** The exchange of the last request sent. */
  last(): Exchange;
  readonly sent: Exchange[];
}

export function originOf(url: string): string {
  const u = new URL(url);
  return `${u.origin}${u.pathname.replace(/\/+$/, "").replace(/\/developer\/v1$/, "")}`;
}

const cut = (s: string) => (s.length > RECORDED_BODY_MAX ? `${s.slice(0, RECORDED_BODY_MAX)}…` : s);

async function requestBody(request: Request): Promise<string | undefined> {
  const type = request.headers.get("content-type") ?? "";
  if (!request.body) return undefined;
  if (type.startsWith("multipart/")) return "(multipart form: version, changelog, bundle)";
  return cut(await request.clone().text());
}

/** Waits `seconds`, or rejects as soon as `signal` aborts. */
function wait(seconds: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, seconds * 1000);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

export function createTransport(
  url: string,
  redactor: Redactor,
  options: {
    dryRun?: boolean;
    signal?: AbortSignal;
    /** false: a 429 is the answer (the rate-limit check), neither waited out nor a reason to stop. */
    waitOutRateLimits?: boolean;
    /**
     * The target's windows, as its answers tell them: a request its group has no room for is not sent, and a
     * 429 that is not waited out stops the run (RateLimitStop). Without it a 429 is returned as the answer.
     */
    budget?: RateBudget;
    /** The tools' one transport to the target, shared by every recording transport of a run. */
    outbound: Outbound;
  },
): Transport {
  const origin = originOf(url);
  const sent: Exchange[] = [];
  const recording = async (request: Request, retried = false): Promise<Response> => {
    const u = new URL(request.url);
    if (options.budget && !options.dryRun) options.budget.require(request.method, u.pathname);
    const exchange: Exchange = {
      request: {
        method: request.method,
        path: redactor.text(u.pathname + u.search),
        headers: redactor.headers(request.headers),
        ...(await requestBody(request).then((b) => (b === undefined ? {} : { body: redactor.text(b) }))),
      },
      response: null,
    };
    sent.push(exchange);
    if (options.dryRun) {
      exchange.response = { status: DRY_RUN_STATUS, headers: {}, body: "" };
      return new Response(null, { status: DRY_RUN_STATUS });
    }
    options.signal?.throwIfAborted();
    // Kept for a second try: the account's window may be full from the user's own traffic.
    const again = options.waitOutRateLimits === false ? null : (request.clone() as Request);
    let response: Response;
    try {
      response = await options.outbound.fetch(
        options.signal ? new Request(request, { signal: options.signal }) : request,
      );
    } catch (e) {
      exchange.failure = options.signal?.aborted ? "interrupted" : `no answer: ${(e as Error).message}`;
      throw e;
    }
    options.budget?.learn(request.method, u.pathname, response.headers);
    const retryHeader = response.headers.get("retry-after");
    const retryAfter = retryHeader === null || retryHeader.trim() === "" ? Number.NaN : Number(retryHeader);
    const waitable = Number.isInteger(retryAfter) && retryAfter >= 0;
    if (again && response.status === 429 && waitable && retryAfter <= LONGEST_WAIT_SECONDS && !retried) {
      const body = cut(redactor.text(await readAnswerText(response, request.method, request.url)));
      exchange.response = { status: 429, headers: redactor.headers(response.headers), body };
      exchange.failure = `rate limited: waited ${retryAfter} s and sent it again`;
      await wait(retryAfter, options.signal);
      return recording(again, true);
    }
    if (again && response.status === 429 && options.budget) {
      const body = cut(redactor.text(await readAnswerText(response, request.method, request.url)));
      exchange.response = { status: 429, headers: redactor.headers(response.headers), body };
      exchange.failure = "rate limited: the run stopped here";
      throw new RateLimitStop(
        `the target answered 429${retried ? " again after the wait it asked for" : ""}`,
        `${request.method} ${redactor.text(u.pathname)}`,
        waitable ? Math.max(retryAfter, 1) : null,
        false,
      );
    }
    let text: string;
    try {
      text = await readAnswerText(response, request.method, request.url);
    } catch (e) {
      exchange.failure = `no whole answer: ${(e as Error).message}`;
      throw e;
    }
    exchange.response = {
      status: response.status,
      headers: redactor.headers(response.headers),
      body: cut(redactor.text(text)),
    };
    // The recorded copy is redacted; the caller gets the real text (it must see a leaked value to report it).
    return new Response(response.status === 204 || response.status === 304 ? null : text, {
      status: response.status,
      headers: response.headers,
    });
  };
  const last = () => {
    const e = sent.at(-1);
    if (!e) throw new Error("no request sent yet");
    return e;
  };
  return {
    origin,
    sent,
    last,
    client: (key) => createApiClient({ baseUrl: origin, apiKey: key, fetch: recording }),
    raw: (r) =>
      recording(
        new Request(origin + r.path, {
          method: r.method,
          headers: r.headers,
          ...(r.body === undefined ? {} : { body: r.body }),
        }),
      ),
  };
}
