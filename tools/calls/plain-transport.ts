/**
 * The transport to a server the command holds no admin token for (transport.ts). Over plain http its
 * connections are the transport's own (proven-transport.ts): a server that answers the challenge at all (an
 * ext emulator) is held to its first answer on every connection (sameServerCheck), so a listener that took
 * its port meanwhile ends the command instead of receiving the key; any other server is held by the
 * command's first connection to it alone (unproven-hold.ts): every key or token goes on that one, one request
 * at a time, none once it closed, and none once connecting to it failed. Over https (TLS names the server on every connection) it
 * is called with `fetch`, timed by the one watchdog, no redirect followed.
 */

import { type ProvenTransport, provenTransport, sameServerCheck } from "./proven-transport";
import {
  CredentialWithheldError,
  carriesCredential,
  follow,
  isEventStream,
  isStreamRoute,
  RequestTimeoutError,
  responseOf,
  type Transport,
  type TransportOptions,
} from "./transport-base";
import { Watchdog } from "./watchdog";

export function plainTransport(options: TransportOptions): Transport {
  const { timeoutMs } = options;
  /** Plain-http origins that could not be reached in this command (refused, reset). */
  const failed = new Set<string>();
  /** Per plain-http origin: its transport, held to its first answer or by its connections. */
  const held = new Map<string, Promise<ProvenTransport>>();

  function heldTo(url: URL, request: Request): Promise<ProvenTransport> {
    let found = held.get(url.origin);
    if (!found) {
      const transport = provenTransport(sameServerCheck(), url.origin, timeoutMs, { heldWithoutProof: true });
      found = transport.probe().then(
        () => transport,
        (e) => {
          // Nothing answered (refused, no answer in time): asked again by the next request.
          held.delete(url.origin);
          if (!(e instanceof RequestTimeoutError)) failed.add(url.origin);
          throw e instanceof RequestTimeoutError
            ? new RequestTimeoutError(request.url, request.method, timeoutMs / 1000)
            : e;
        },
      );
      held.set(url.origin, found);
    }
    return found;
  }

  return {
    prove: async () => "there is no admin token to prove it with",
    async fetch(request) {
      const url = new URL(request.url);
      if (url.protocol === "http:") {
        if (failed.has(url.origin) && carriesCredential(request)) throw new CredentialWithheldError(url.origin);
        return (await heldTo(url, request)).fetch(request);
      }
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
        throw e;
      }
      watchdog.stop();
      const reading = new Watchdog(timeoutMs, () => cut.abort(timedOut));
      // The body's waits share one budget (a trickle is cut); only a stream route's live events may wait on.
      reading.answering();
      if (isEventStream(response.headers) && isStreamRoute(request.url)) reading.retire();
      if (!response.body) unfollow();
      const stream = response.body ? watchedDownload(response.body, reading, unfollow) : null;
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
