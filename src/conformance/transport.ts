/**
 * How the conformance run talks to a target: the generated client (client/) for the calls it describes,
 * and `raw()` for what it cannot send (no key, a malformed header, a wrong Content-Type). Both go through
 * one recording fetch, so every exchange is kept — redacted — for the report. With `dryRun` nothing is
 * sent: each request is recorded and answered locally with a 299 and no body.
 */
import { type ApiClient, createApiClient } from "../../client/index";
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

/** A 429 asking for at most this long is waited out and the request sent again; a longer one is reported. */
const LONGEST_WAIT_SECONDS = 60;

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
  options: { dryRun?: boolean; signal?: AbortSignal; waitOutRateLimits?: boolean },
): Transport {
  const origin = originOf(url);
  const sent: Exchange[] = [];
  const recording = async (request: Request): Promise<Response> => {
    const u = new URL(request.url);
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
      response = await fetch(request, { signal: options.signal, redirect: "manual" });
    } catch (e) {
      exchange.failure = options.signal?.aborted ? "interrupted" : `no answer: ${(e as Error).message}`;
      throw e;
    }
    const retryAfter = Number(response.headers.get("retry-after"));
    if (
      again &&
      response.status === 429 &&
      Number.isInteger(retryAfter) &&
      retryAfter >= 0 &&
      retryAfter <= LONGEST_WAIT_SECONDS
    ) {
      const body = cut(redactor.text(await response.text()));
      exchange.response = { status: 429, headers: redactor.headers(response.headers), body };
      exchange.failure = `rate limited: waited ${retryAfter} s and sent it again`;
      await wait(retryAfter, options.signal);
      return recording(again);
    }
    const text = await response.text();
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
