/**
 * `GET /_emulator/requests/stream`: the request log as Server-Sent Events. Each event is one entry
 * (`id:` its id, `data:` the summary as JSON); a comment every HEARTBEAT_MS keeps proxies and the idle
 * timeout from closing a quiet stream. Streams end when the client goes away or the server stops
 * (`closeRequestStreams`), so a graceful stop never waits on an open dashboard.
 *
 * Every open stream is paid for on each logged request, so the cost is bounded: an entry is serialised once,
 * into one frame every stream enqueues; at most MAX_REQUEST_STREAMS are open (past it a 503); and a client
 * that lets more than MAX_QUEUED_BYTES wait unread is dropped, with a last comment saying why.
 */
import { errors } from "../errors/catalog";
import type { RequestLogEntry } from "../runtime/control-state/model";
import type { RequestLog } from "../runtime/control-state/request-log";

const HEARTBEAT_MS = 15_000;
export const MAX_REQUEST_STREAMS = 32;
export const MAX_QUEUED_BYTES = 256 * 1024;

const encoder = new TextEncoder();
const CONNECTED = encoder.encode(": connected\n\n");
const KEEP_ALIVE = encoder.encode(": keep-alive\n\n");
const DROPPED = encoder.encode(`: dropped: more than ${MAX_QUEUED_BYTES} bytes waited unread\n\n`);

export const eventOf = (entry: RequestLogEntry) =>
  `id: ${entry.id}\nevent: request\ndata: ${JSON.stringify(entry)}\n\n`;

interface Client {
  /** Enqueues a frame, or drops the client when too much is already waiting for it. */
  send(frame: Uint8Array): void;
  close(last?: Uint8Array): void;
}

/** The open streams of one log: one subscription and one heartbeat, whatever their number. */
class StreamHub {
  readonly clients = new Set<Client>();
  private stop: (() => void) | null = null;

  constructor(private readonly log: RequestLog) {}

  open(recent: number): Response {
    if (this.clients.size >= MAX_REQUEST_STREAMS) throw errors.tooManyStreams(MAX_REQUEST_STREAMS);
    let client: Client | null = null;
    const stream = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          let closed = false;
          client = {
            send: (frame) => {
              if ((controller.desiredSize ?? 0) < 0) return client!.close(DROPPED);
              controller.enqueue(frame);
            },
            close: (last) => {
              if (closed) return;
              closed = true;
              this.remove(client!);
              try {
                if (last) controller.enqueue(last);
                controller.close();
              } catch {
                // already closed by the client
              }
            },
          };
          // The replay is bounded by the log's capacity; the byte bound applies to what arrives live.
          controller.enqueue(CONNECTED);
          for (const entry of this.log.recent(recent).reverse()) controller.enqueue(encoder.encode(eventOf(entry)));
          this.add(client);
        },
        cancel: () => client?.close(),
      },
      new ByteLengthQueuingStrategy({ highWaterMark: MAX_QUEUED_BYTES }),
    );
    return new Response(stream, {
      headers: {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-store",
        "x-accel-buffering": "no",
      },
    });
  }

  closeAll(): void {
    for (const client of [...this.clients]) client.close();
  }

  private add(client: Client): void {
    this.clients.add(client);
    if (this.stop) return;
    const unsubscribe = this.log.subscribe((entry) => this.broadcast(encoder.encode(eventOf(entry))));
    const heartbeat = setInterval(() => this.broadcast(KEEP_ALIVE), HEARTBEAT_MS);
    this.stop = () => {
      unsubscribe();
      clearInterval(heartbeat);
    };
  }

  private remove(client: Client): void {
    this.clients.delete(client);
    if (this.clients.size > 0 || !this.stop) return;
    this.stop();
    this.stop = null;
  }

  private broadcast(frame: Uint8Array): void {
    for (const client of [...this.clients]) client.send(frame);
  }
}

const hubs = new WeakMap<RequestLog, StreamHub>();

function hubOf(log: RequestLog): StreamHub {
  let hub = hubs.get(log);
  if (!hub) hubs.set(log, (hub = new StreamHub(log)));
  return hub;
}

/** `recent` entries already logged come first (oldest first), then every new one as it is recorded. */
export function requestStream(log: RequestLog, recent: number): Response {
  return hubOf(log).open(recent);
}

/** How many streams of this log are open. */
export function openRequestStreams(log: RequestLog): number {
  return hubs.get(log)?.clients.size ?? 0;
}

/** Ends every open stream of this log (server stop, so draining does not wait on them). */
export function closeRequestStreams(log: RequestLog): void {
  hubs.get(log)?.closeAll();
}
