/**
 * What the parts of the tools' one transport (transport.ts) share: its types, its errors, and how an answer
 * becomes the Response the typed clients read.
 */

/** What a server proves it holds, and the address the proof names (its own URL). */
export interface ProofKey {
  adminToken: string;
  url: string;
}

export interface TransportOptions {
  /** Each request's wait (watchdog.ts), in ms. */
  timeoutMs: number;
  /** Given: the server proves it holds this token before a credential goes to it (transport.ts). */
  proof?: ProofKey | null;
  /** `ext proxy`: bodies exactly as the server sent them (compressed ones stay compressed). */
  passthrough?: boolean;
}

export interface Transport {
  /** What the generated clients call instead of the global fetch. */
  fetch(request: Request): Promise<Response>;
  /**
   * Proves the server (a first connection, kept for the next request): null when it did, else why not. The
   * resolving of a target calls it, to say in its own words which server failed.
   */
  prove(): Promise<string | null>;
}

/** The errors the transport itself raises: each is the whole story, shown as it is. */
export class TransportError extends Error {
  override name = "TransportError";
}

/** The server kept the request waiting past the timeout. */
export class RequestTimeoutError extends TransportError {
  override name = "RequestTimeoutError";
  constructor(url: string, method: string, seconds: number) {
    const u = new URL(url);
    super(
      `${u.origin} did not answer ${method} ${u.pathname} within ${seconds} s (EXT_REQUEST_TIMEOUT sets the wait, in seconds)`,
    );
  }
}

/** A server proven once failed the proof on a new connection. */
export class ServerChangedError extends TransportError {
  override name = "ServerChangedError";
  constructor(
    url: string,
    readonly why: string,
  ) {
    super(
      `the server at ${url} is no longer the one this command started with (${why}); nothing more was sent to it. If you restarted it, run the command again`,
    );
  }
}

/** A server that never proved itself was called before it was resolved (a helper's address, a test). */
export class NotProvenError extends TransportError {
  override name = "NotProvenError";
  constructor(
    url: string,
    readonly why: string,
  ) {
    super(
      `the server at ${url} did not prove it is the emulator this admin token belongs to (${why}); nothing was sent to it`,
    );
  }
}

/**
 * A credential withheld from a plain-http server without proof: a connection to it failed (`failed`: nothing
 * with a key goes to it again), or the one connection that carries the command's credentials to it closed
 * (`closed`: nothing with a key goes to it again, no new connection carries one; unproven-hold.ts).
 */
export class CredentialWithheldError extends TransportError {
  override name = "CredentialWithheldError";
  constructor(origin: string, why: "failed" | "closed" = "failed") {
    const what =
      why === "failed"
        ? `a connection to ${origin} failed earlier in this command`
        : `the server at ${origin} closed the connection this command sends its key or token on (it stopped or restarted, or it closes connections after an answer or while they are idle)`;
    super(
      `${what}; with no admin token to prove it by, whoever answers there on a new connection may not be the server the command started with, so no key or token is sent to it again. Run the command again once the server is back${why === "closed" ? "; to keep a server that closes its connections, call it over https or point the command at an ext emulator, which proves itself" : ""}`,
    );
  }
}

/**
 * A request with a credential to a plain-http server without proof waited its turn on the one connection
 * that carries them (unproven-hold.ts) for longer than the timeout: the requests before it held it.
 */
export class CredentialConnectionBusyError extends TransportError {
  override name = "CredentialConnectionBusyError";
  constructor(url: string, method: string, seconds: number) {
    const u = new URL(url);
    super(
      `${method} ${u.pathname} waited ${seconds} s for the requests before it: with no admin token to prove ${u.origin} by, this command sends a key or token to it on one connection only, one request at a time (EXT_REQUEST_TIMEOUT sets the wait, in seconds)`,
    );
  }
}

export const isEventStream = (headers: Iterable<[string, string]>) =>
  [...headers].some(([name, value]) => name.toLowerCase() === "content-type" && /^text\/event-stream\b/i.test(value));

/**
 * The routes that answer a live stream of events (`ext logs --follow`): only there may an event stream wait
 * past the timeout. Any other answer typed text/event-stream is timed as every answer is.
 */
const STREAM_ROUTES = ["/_emulator/requests/stream"];

export const isStreamRoute = (url: string) => {
  const path = new URL(url).pathname;
  return STREAM_ROUTES.includes(path);
};

export const carriesCredential = (request: Request) =>
  request.headers.has("authorization") || request.headers.has("x-ext-session");

/** A Response from the parts of an answer, its `url` the request's (a constructed Response has none). */
export function responseOf(
  url: string,
  status: number,
  statusText: string,
  headers: Headers | [string, string][],
  body: ReadableStream<Uint8Array> | null,
): Response {
  if (status < 200 || status > 599) throw new TransportError(`${new URL(url).origin} answered with status ${status}`);
  const response = new Response(status === 204 || status === 304 ? null : body, { status, statusText, headers });
  Object.defineProperty(response, "url", { value: url });
  return response;
}

/** Links the caller's abort signal to `cut`; returns the unlink. */
export function follow(signal: AbortSignal | null, cut: (reason: unknown) => void): () => void {
  if (!signal) return () => {};
  if (signal.aborted) cut(signal.reason);
  const onAbort = () => cut(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  return () => signal.removeEventListener("abort", onAbort);
}

/** The most of an answer a tool reads as JSON or text: a hostile server's endless body must not fill memory. */
export const MAX_READ_ANSWER_BYTES = 16 * 1024 * 1024;

/** An answer a tool reads whole was longer than it reads. */
export class AnswerTooLargeError extends TransportError {
  override name = "AnswerTooLargeError";
  constructor(url: string, method: string, max: number) {
    const u = new URL(url);
    super(
      `${u.origin} answered ${method} ${u.pathname} with more than ${max / (1024 * 1024)} MiB; an answer of the API is far smaller, so the rest was not read. Is this the emulator or the platform's API?`,
    );
  }
}

/** `body`, erroring with AnswerTooLargeError (and cancelling the rest) once more than `max` bytes came. */
export function cappedBody(
  body: ReadableStream<Uint8Array>,
  max: number,
  tooLarge: () => Error,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let read = 0;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const { value, done } = await reader.read();
        if (done) return controller.close();
        read += value.length;
        if (read > max) {
          const e = tooLarge();
          await reader.cancel(e).catch(() => undefined);
          return controller.error(e);
        }
        controller.enqueue(value);
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}

/** An answer's body as text, read once and at most `max` bytes of it (AnswerTooLargeError past that). */
export async function readAnswerText(
  response: Response,
  method: string,
  url: string,
  max = MAX_READ_ANSWER_BYTES,
): Promise<string> {
  if (!response.body) return "";
  return new Response(cappedBody(response.body, max, () => new AnswerTooLargeError(url, method, max))).text();
}

/** What a tool reads whole: JSON, a page, text (a stream of events is read as it comes, an archive is saved). */
const READ_WHOLE = /[/+]json\b|^text\/(?!event-stream)/i;

/**
 * `response` with its body capped when it is of a type a tool reads whole (or of no type): every JSON answer
 * any reader takes from the transport is bounded, whatever reads it.
 */
export function boundedAnswer(response: Response, method: string): Response {
  const type = response.headers.get("content-type") ?? "";
  if (!response.body || (type !== "" && !READ_WHOLE.test(type))) return response;
  const url = response.url;
  const body = cappedBody(
    response.body,
    MAX_READ_ANSWER_BYTES,
    () => new AnswerTooLargeError(url, method, MAX_READ_ANSWER_BYTES),
  );
  return responseOf(url, response.status, response.statusText, response.headers, body);
}
