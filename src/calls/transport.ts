/**
 * The one way the tools (the CLI, the deploy core, the parity tools) call a server. Every call has the one
 * per-request timeout (watchdog.ts) and no redirect is ever followed. What else it does depends on what the
 * tool holds:
 *
 *  - With the server's admin token (a found `ext serve`, or one named with a token), the server proves it
 *    holds the token (`GET /healthz?challenge=`, src/auth/server-proof.ts) on each connection before that
 *    connection carries anything else; the transport holds those connections itself (http1-connection.ts).
 *    A connection that broke — the server stopped, restarted, or closed it — is replaced by a new one, proven
 *    again first. A server that then fails the proof ends the command: it is no longer the one the command
 *    started with, and it got a nonce, nothing more.
 *  - Without one (a real platform, a server named with only a key), there is nothing to prove. Over https,
 *    TLS names the server on every connection. Over plain http, once a connection to it failed (refused,
 *    reset, no answer) nothing that carries a key or token is sent to it again: whoever listens there now
 *    may be someone else.
 */
import { randomBytes } from "node:crypto";
import { checkServerProof } from "../auth/server-proof";
import { Http1Connection, NoAnswerError, type OutgoingRequest } from "./http1-connection";
import { UsageError } from "./usage-error";
import { Watchdog } from "./watchdog";

/** What a server proves it holds, and the address the proof names (its own URL). */
export interface ProofKey {
  adminToken: string;
  url: string;
}

export interface TransportOptions {
  /** Each request's wait (watchdog.ts), in ms. */
  timeoutMs: number;
  /** Given: the server proves it holds this token before a credential goes to it (see above). */
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

/** The default wait of one request, in seconds: an answer of the API, or a proof, comes in far less. */
export const DEFAULT_REQUEST_TIMEOUT_SECONDS = 30;
const MAX_REQUEST_TIMEOUT_SECONDS = 3600;

/** EXT_REQUEST_TIMEOUT as ms (the default when unset); a usage error before anything is sent when it is not one. */
export function requestTimeoutMs(given: string | null): number {
  if (given === null) return DEFAULT_REQUEST_TIMEOUT_SECONDS * 1000;
  const n = /^\d+$/.test(given.trim()) ? Number(given) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > MAX_REQUEST_TIMEOUT_SECONDS)
    throw new UsageError(
      `EXT_REQUEST_TIMEOUT must be a whole number of seconds from 1 to ${MAX_REQUEST_TIMEOUT_SECONDS} (got "${given}")`,
    );
  return n * 1000;
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
  constructor(url: string, why: string) {
    super(
      `the server at ${url} is no longer the one this command started with (${why}); nothing more was sent to it. If you restarted it, run the command again`,
    );
  }
}

/** A server that never proved itself was called before it was resolved (a helper's address, a test). */
export class NotProvenError extends TransportError {
  override name = "NotProvenError";
  constructor(url: string, why: string) {
    super(
      `the server at ${url} did not prove it is the emulator this admin token belongs to (${why}); nothing was sent to it`,
    );
  }
}

/** A credential withheld from a plain-http server without proof whose connection failed. */
export class CredentialWithheldError extends TransportError {
  override name = "CredentialWithheldError";
  constructor(origin: string) {
    super(
      `a connection to ${origin} failed earlier in this command; with no admin token to prove it by, whoever answers there now may not be the server the command started with, so no key or token is sent to it again. Run the command again once the server is back`,
    );
  }
}

const IDEMPOTENT = new Set(["GET", "HEAD", "PUT", "DELETE", "OPTIONS"]);
/** A pooled connection idle this long is closed, not reused: the server's own idle limit (10 s) may be near. */
const STALE_MS = 4_000;
/** How much of a proof's answer is read. */
const MAX_PROOF_BYTES = 64 * 1024;
/** Not forwarded by the pinned connections: they frame the request themselves. */
const FRAMING_HEADERS = new Set([
  "host",
  "connection",
  "content-length",
  "transfer-encoding",
  "keep-alive",
  "te",
  "upgrade",
  "expect",
]);

const isEventStream = (headers: Iterable<[string, string]>) =>
  [...headers].some(([name, value]) => name.toLowerCase() === "content-type" && /^text\/event-stream\b/i.test(value));

const carriesCredential = (request: Request) =>
  request.headers.has("authorization") || request.headers.has("x-ext-session");

/** The transport to one server (its origin is every request's), for the life of a command. */
export function createTransport(options: TransportOptions): Transport {
  return options.proof ? provenTransport(options.proof, options.timeoutMs) : plainTransport(options);
}

/** A Response from the parts of an answer, its `url` the request's (a constructed Response has none). */
function responseOf(
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
function follow(signal: AbortSignal | null, cut: (reason: unknown) => void): () => void {
  if (!signal) return () => {};
  if (signal.aborted) cut(signal.reason);
  const onAbort = () => cut(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  return () => signal.removeEventListener("abort", onAbort);
}

function provenTransport(key: ProofKey, timeoutMs: number): Transport {
  const idle: Http1Connection[] = [];
  let provenOnce = false;

  /** A fresh connection, proven: its answer to the challenge is checked before anything else goes on it. */
  async function openProven(url: URL, watchdog: Watchdog): Promise<Http1Connection> {
    const connection = await Http1Connection.open(
      url.hostname.replace(/^\[|\]$/g, ""),
      Number(url.port || 80),
      watchdog,
    );
    const why = await proofOn(connection, url, watchdog).catch((e) => {
      if (watchdog.fired) throw e;
      return `it did not answer the challenge (${(e as Error).message})`;
    });
    if (why !== null) {
      connection.destroy();
      if (provenOnce) throw new ServerChangedError(key.url, why);
      throw new NotProvenError(key.url, why);
    }
    provenOnce = true;
    return connection;
  }

  async function proofOn(connection: Http1Connection, url: URL, watchdog: Watchdog): Promise<string | null> {
    const nonce = randomBytes(32).toString("base64url");
    const target = `/healthz?challenge=${nonce}`;
    const headers: [string, string][] = [
      ["Host", url.host],
      ["Accept", "application/json"],
    ];
    const answer = await connection.send({ method: "GET", target, headers, body: null }, watchdog, () => {});
    let rest = "";
    if (answer.body) {
      const reader = answer.body.getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        rest += new TextDecoder().decode(value);
        if (rest.length > MAX_PROOF_BYTES) {
          connection.destroy();
          return "its answer to the challenge is too long";
        }
      }
    }
    if (answer.status < 200 || answer.status > 299) return `it answered the challenge with ${answer.status}`;
    let proof: unknown;
    try {
      proof = (JSON.parse(rest) as { proof?: unknown } | null)?.proof;
    } catch {
      return "its answer to the challenge is not JSON";
    }
    // Proof and credentials must share a connection: a server that closes it after the proof cannot be held to it.
    if (!connection.reusable) return "it closed the connection after its answer to the challenge";
    if (checkServerProof(key.adminToken, nonce, key.url, proof)) return null;
    return proof === undefined ? "its answer carries no proof" : "its proof is wrong";
  }

  /** A proven connection: an idle one still open (`reused`), else a new one proven first. */
  async function acquire(url: URL, watchdog: Watchdog): Promise<{ connection: Http1Connection; reused: boolean }> {
    for (let c = idle.pop(); c; c = idle.pop()) {
      if (!c.closed && c.reusable && performance.now() - c.idleSince < STALE_MS) return { connection: c, reused: true };
      c.destroy();
    }
    return { connection: await openProven(url, watchdog), reused: false };
  }

  const release = (c: Http1Connection) => {
    if (c.closed || !c.reusable) c.destroy();
    else {
      c.idleSince = performance.now();
      idle.push(c);
    }
  };

  async function send(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const outgoing = await outgoingOf(request, url);
    const retriable = IDEMPOTENT.has(request.method) && !(outgoing.body && "stream" in outgoing.body);
    for (let attempt = 0; ; attempt++) {
      let connection: Http1Connection | null = null;
      let reused = false;
      // Expiring, it closes whatever connection it is timing (Http1Connection registers itself).
      const watchdog = new Watchdog(timeoutMs);
      const unfollow = follow(request.signal, (reason) => connection?.destroy(reason as Error));
      try {
        ({ connection, reused } = await acquire(url, watchdog));
        const c = connection;
        request.signal?.throwIfAborted();
        const answer = await c.send(outgoing, watchdog, () => {
          watchdog.stop();
          unfollow();
          release(c);
        });
        if (isEventStream(answer.headers)) watchdog.retire();
        return responseOf(request.url, answer.status, answer.statusText, answer.headers, answer.body);
      } catch (e) {
        watchdog.stop();
        unfollow();
        connection?.destroy();
        if (watchdog.fired) throw new RequestTimeoutError(request.url, request.method, timeoutMs / 1000);
        if (request.signal?.aborted) throw request.signal.reason;
        // A kept connection the server closed just as it was reused: the request never reached an answer.
        if (e instanceof NoAnswerError && reused && retriable && attempt === 0) continue;
        throw e;
      }
    }
  }

  return {
    fetch: send,
    async prove() {
      const url = new URL(key.url);
      const watchdog = new Watchdog(timeoutMs);
      try {
        release(await openProven(url, watchdog));
        return null;
      } catch (e) {
        if (e instanceof NotProvenError || e instanceof ServerChangedError)
          return e.message.slice(e.message.indexOf("(") + 1, e.message.lastIndexOf(")"));
        return `it did not answer the challenge (${watchdog.fired ? `no answer within ${timeoutMs / 1000} s` : (e as Error).message})`;
      } finally {
        watchdog.stop();
      }
    },
  };
}

/** The request as the pinned connection sends it: its own framing, the body whole or streamed with its length. */
async function outgoingOf(request: Request, url: URL): Promise<OutgoingRequest> {
  const headers: [string, string][] = [["Host", url.host]];
  for (const [name, value] of request.headers) if (!FRAMING_HEADERS.has(name)) headers.push([name, value]);
  let body: OutgoingRequest["body"] = null;
  const length = Number(request.headers.get("content-length") ?? Number.NaN);
  if (request.body && Number.isSafeInteger(length) && length >= 0) body = { stream: request.body, length };
  else if (request.body) body = { bytes: new Uint8Array(await request.arrayBuffer()) };
  return { method: request.method, target: url.pathname + url.search, headers, body };
}

function plainTransport(options: TransportOptions): Transport {
  const { timeoutMs } = options;
  /** Origins whose connection failed in this command (plain http only matters). */
  const failed = new Set<string>();
  return {
    prove: async () => "there is no admin token to prove it with",
    async fetch(request) {
      const url = new URL(request.url);
      if (url.protocol === "http:" && failed.has(url.origin) && carriesCredential(request))
        throw new CredentialWithheldError(url.origin);
      const cut = new AbortController();
      const timedOut = new RequestTimeoutError(request.url, request.method, timeoutMs / 1000);
      const watchdog = new Watchdog(timeoutMs, () => cut.abort(timedOut));
      const unfollow = follow(request.signal, (reason) => cut.abort(reason));
      // Connecting counts; an upload's own chunks do not (watchedUpload).
      watchdog.arm();
      const body = request.body ? watchedUpload(request.body, watchdog) : null;
      let response: Response;
      try {
        response = await fetch(request.url, {
          method: request.method,
          headers: request.headers,
          body,
          signal: cut.signal,
          redirect: "manual",
          ...(body ? { duplex: "half" } : {}),
          ...(options.passthrough ? { decompress: false } : {}),
        } as RequestInit);
      } catch (e) {
        watchdog.stop();
        unfollow();
        if (watchdog.fired) throw timedOut;
        if (request.signal?.aborted) throw request.signal.reason;
        failed.add(url.origin);
        throw e;
      }
      watchdog.stop();
      const reading = new Watchdog(timeoutMs, () => cut.abort(timedOut));
      if (isEventStream(response.headers)) reading.retire();
      if (!response.body) unfollow();
      const stream = response.body
        ? watchedDownload(response.body, reading, unfollow, () => failed.add(url.origin))
        : null;
      return responseOf(request.url, response.status, response.statusText, response.headers, stream);
    },
  };
}

/**
 * An upload body, timed from its last byte: while `fetch` takes each chunk the wait does not run; between a
 * chunk handed over and the next one asked for (the server not reading), and after the last, it does.
 */
function watchedUpload(source: ReadableStream<Uint8Array>, watchdog: Watchdog): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  // Armed by the caller: connecting is waiting on the server.
  let waiting = true;
  const wait = (on: boolean) => {
    if (on && !waiting) watchdog.arm();
    if (!on && waiting) watchdog.disarm();
    waiting = on;
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        wait(false);
        const { value, done } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
        wait(true);
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}

/** An answer's body, each read timed: a server that stops in the middle is cut (a live event stream is not). */
function watchedDownload(
  source: ReadableStream<Uint8Array>,
  watchdog: Watchdog,
  finished: () => void,
  broke: () => void,
): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { value, done } = await watchdog.during(reader.read());
          if (done) {
            watchdog.stop();
            finished();
            controller.close();
          } else controller.enqueue(value);
        } catch (e) {
          watchdog.stop();
          finished();
          broke();
          controller.error(e);
        }
      },
      cancel: (reason) => {
        watchdog.stop();
        finished();
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}
