/**
 * `GET /_emulator/requests/stream`: the request log as Server-Sent Events. Each event is one entry
 * (`id:` its id, `data:` the summary as JSON); a comment every HEARTBEAT_MS keeps proxies and the idle
 * timeout from closing a quiet stream. Streams end when the client goes away or the server stops
 * (`closeRequestStreams`), so a graceful stop never waits on an open dashboard.
 */
import type { RequestLogEntry } from "./model";
import type { RequestLog } from "./request-log";

const HEARTBEAT_MS = 15_000;
/** Events queued for a client that does not read: past this the stream is closed rather than grown without bound. */
export const MAX_QUEUED_EVENTS = 1_000;
const encoder = new TextEncoder();
const openStreams = new WeakMap<RequestLog, Set<() => void>>();

export const eventOf = (entry: RequestLogEntry) =>
  `id: ${entry.id}\nevent: request\ndata: ${JSON.stringify(entry)}\n\n`;

/** `recent` entries already logged come first (oldest first), then every new one as it is recorded. */
export function requestStream(log: RequestLog, recent: number): Response {
  let close = () => {};
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (text: string) => {
        if ((controller.desiredSize ?? 0) < -MAX_QUEUED_EVENTS) return close();
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          close();
        }
      };
      send(": connected\n\n");
      for (const entry of log.recent(recent).reverse()) send(eventOf(entry));
      const unsubscribe = log.subscribe((entry) => send(eventOf(entry)));
      const heartbeat = setInterval(() => send(": keep-alive\n\n"), HEARTBEAT_MS);
      const streams = openStreams.get(log) ?? new Set();
      openStreams.set(log, streams);
      let closed = false;
      close = () => {
        if (closed) return;
        closed = true;
        unsubscribe();
        clearInterval(heartbeat);
        streams.delete(close);
        try {
          controller.close();
        } catch {
          // already closed by the client
        }
      };
      streams.add(close);
    },
    cancel() {
      close();
    },
  });
  return new Response(stream, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      "x-accel-buffering": "no",
    },
  });
}

/** Ends every open stream of this log (server stop, so draining does not wait on them). */
export function closeRequestStreams(log: RequestLog): void {
  for (const close of [...(openStreams.get(log) ?? [])]) close();
}
