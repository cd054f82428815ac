/**
 * HTTP/1.1 over one TCP connection that the transport holds itself (transport.ts), so that a server's proof
 * and the credentials it vouches for travel on the same connection: `fetch` pools its connections out of
 * sight, and a port freed by a stopped server and taken by someone else would get the next request on a
 * fresh connection without the caller ever knowing. Here a closed connection is seen, and the next one is
 * proven before it carries anything. It speaks only what an ext server answers: a status line, headers, a
 * body framed by Content-Length, chunks or the connection's end. Redirects are never followed.
 */
import { connect, type Socket } from "node:net";
import type { Watchdog } from "./watchdog";

/** The longest status line and headers accepted, and the longest chunk-size line. */
const MAX_HEAD_BYTES = 64 * 1024;
const MAX_LINE_BYTES = 4096;
/** Past this much unread answer, the socket is paused until the reader catches up. */
const PAUSE_AT = 1024 * 1024;

const CRLF = Buffer.from("\r\n");
const HEAD_END = Buffer.from("\r\n\r\n");

/** The connection ended (or failed) before any byte of an answer: a request on a reused one may go again. */
export class NoAnswerError extends Error {
  override name = "NoAnswerError";
  constructor(message: string, cause?: unknown) {
    super(message, { cause });
  }
}

/** The server closed the connection before an answer's end (it stopped, or cut the answer short). */
export class ConnectionClosedError extends Error {
  override name = "ConnectionClosedError";
}

export interface OutgoingRequest {
  method: string;
  /** The path and query. */
  target: string;
  /** Host included; no Content-Length or Transfer-Encoding (the body's framing is added here). */
  headers: [string, string][];
  body: { bytes: Uint8Array } | { stream: ReadableStream<Uint8Array>; length: number } | null;
}

export interface IncomingAnswer {
  status: number;
  statusText: string;
  headers: [string, string][];
  body: ReadableStream<Uint8Array> | null;
}

export class Http1Connection {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private ended = false;
  private failure: Error | null = null;
  private wake: (() => void) | null = null;
  private watchdog: Watchdog | null = null;
  /** Called once, as soon as the connection is seen closed or failing, by either side (onClose). */
  private closers: (() => void)[] = [];
  /** Requests sent on it so far. */
  exchanges = 0;
  /** When its last answer ended (it waits in the pool since). */
  idleSince = 0;
  /** False once it cannot carry another request. */
  reusable = true;

  private constructor(private readonly socket: Socket) {
    socket.on("data", (chunk: Buffer) => {
      this.chunks.push(chunk);
      this.buffered += chunk.length;
      if (this.buffered > PAUSE_AT) socket.pause();
      this.watchdog?.touch();
      this.poke();
    });
    socket.on("end", () => {
      this.ended = true;
      this.reusable = false;
      this.gone();
    });
    socket.on("error", (e) => {
      this.failure ??= e;
      this.reusable = false;
      this.gone();
    });
    socket.on("close", () => {
      this.ended = true;
      this.reusable = false;
      this.gone();
    });
  }

  /** Connects, the watchdog running; rejects with the socket's error (refused, unreachable) or the abort. */
  static open(host: string, port: number, watchdog: Watchdog): Promise<Http1Connection> {
    return watchdog.during(
      new Promise<Http1Connection>((resolve, reject) => {
        const socket = connect({ host, port, noDelay: true });
        watchdog.also(() => socket.destroy(new Error("no answer in time")));
        const failed = (e: Error) => reject(e);
        socket.once("error", failed);
        socket.once("connect", () => {
          socket.off("error", failed);
          // An idle connection in the pool never keeps the process alive.
          socket.unref();
          resolve(new Http1Connection(socket));
        });
      }),
    );
  }

  get closed(): boolean {
    return this.ended || this.failure !== null || this.socket.destroyed;
  }

  destroy(error?: Error): void {
    this.reusable = false;
    if (error) this.failure ??= error;
    this.socket.destroy();
    this.gone();
  }

  /**
   * Calls `closed` once the connection ends, fails or is destroyed, by either side — synchronously with the
   * first sign of it, before any read waiting on the connection learns of it.
   */
  onClose(closed: () => void): void {
    if (this.closed) closed();
    else this.closers.push(closed);
  }

  /** The connection is over: the closers learn it first, then any read waiting on it. */
  private gone(): void {
    const closers = this.closers;
    this.closers = [];
    for (const closed of closers) closed();
    this.poke();
  }

  /**
   * Sends one request and resolves with its answer once the head has come; the body streams from the socket
   * as it is read. The connection is busy until that body has been read to its end (or cancelled).
   */
  async send(request: OutgoingRequest, watchdog: Watchdog, done: () => void): Promise<IncomingAnswer> {
    this.watchdog = watchdog;
    watchdog.also(() => this.destroy(new Error("no answer in time")));
    this.exchanges++;
    this.socket.ref();
    const head = [`${request.method} ${request.target} HTTP/1.1`];
    for (const [name, value] of request.headers) head.push(`${name}: ${value}`);
    const body = request.body;
    if (body) head.push(`Content-Length: ${"bytes" in body ? body.bytes.length : body.length}`);
    let writing: Promise<void> = this.write(Buffer.from(`${head.join("\r\n")}\r\n\r\n`, "latin1"));
    if (body && "bytes" in body) writing = writing.then(() => this.write(body.bytes));
    else if (body) writing = writing.then(() => this.writeStream(body.stream, body.length));
    // Read at once: a server may answer (a refusal) before it has read the whole body.
    const answer = this.readAnswer(request.method, done);
    const first = await Promise.race([
      writing.then(() => "sent" as const),
      answer.then(() => "answered" as const),
    ]).catch(() => "failed" as const);
    // From here the answer's waits, head and body, share one budget (watchdog.ts): a trickle is cut too.
    watchdog.answering();
    if (first === "answered") {
      // The rest of the body is not needed; the server may not read it, so the connection is done after this.
      writing.catch(() => undefined);
      if (body && "stream" in body) this.reusable = false;
      return answer;
    }
    // Sent (or the writing failed: an answer may still be in what arrived): from the last byte, the wait runs.
    writing.catch(() => undefined);
    return watchdog.during(answer);
  }

  private poke(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  /** Waits until more arrives than is buffered now, or the connection ends or fails. */
  private async more(): Promise<void> {
    if (this.closed) return;
    await new Promise<void>((resolve) => {
      this.wake = resolve;
    });
  }

  private take(n: number): Buffer {
    const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    const taken = all.subarray(0, n);
    const rest = all.subarray(n);
    this.chunks = rest.length > 0 ? [rest] : [];
    this.buffered = rest.length;
    if (this.buffered <= PAUSE_AT && this.socket.isPaused()) this.socket.resume();
    return taken;
  }

  private peek(): Buffer {
    if (this.chunks.length > 1) this.chunks = [Buffer.concat(this.chunks)];
    return this.chunks[0] ?? Buffer.alloc(0);
  }

  private endError(): Error {
    return this.failure ?? new ConnectionClosedError("the server closed the connection");
  }

  /** Bytes up to `delimiter` (consumed with it), at most `max` of them. */
  private async readUntil(delimiter: Buffer, max: number, what: string): Promise<Buffer> {
    for (;;) {
      const at = this.peek().indexOf(delimiter);
      if (at >= 0) {
        const line = this.take(at);
        this.take(delimiter.length);
        return line;
      }
      if (this.buffered > max) throw new Error(`the server sent ${what} longer than ${max} bytes`);
      if (this.closed) throw this.endError();
      await this.more();
    }
  }

  /** Up to `max` bytes, at least one; null at the connection's end. */
  private async readSome(max: number): Promise<Buffer | null> {
    while (this.buffered === 0) {
      if (this.failure) throw this.failure;
      if (this.closed) return null;
      await this.more();
    }
    return this.take(Math.min(max, this.buffered));
  }

  /** Resolves once the bytes are handed to the system; a write the server does not take is waited on, timed. */
  private write(bytes: Uint8Array): Promise<void> {
    if (this.closed) return Promise.reject(this.endError());
    const written = new Promise<void>((resolve, reject) =>
      this.socket.write(bytes, (e) => (e ? reject(e) : resolve())),
    );
    return this.watchdog ? this.watchdog.during(written) : written;
  }

  private async writeStream(stream: ReadableStream<Uint8Array>, length: number): Promise<void> {
    let sent = 0;
    const reader = stream.getReader();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        sent += value.length;
        if (sent > length) throw new Error(`the request body is longer than the ${length} bytes it announced`);
        await this.write(value);
      }
      if (sent !== length) throw new Error(`the request body ended after ${sent} of the ${length} bytes it announced`);
    } catch (e) {
      await reader.cancel(e).catch(() => undefined);
      this.destroy(e as Error);
      throw e;
    }
  }

  private async readAnswer(method: string, done: () => void): Promise<IncomingAnswer> {
    for (;;) {
      let head: Buffer;
      try {
        head = await this.readUntil(HEAD_END, MAX_HEAD_BYTES, "a head");
      } catch (e) {
        if (this.buffered === 0)
          throw new NoAnswerError(`the connection ended before an answer (${(e as Error).message})`, e);
        throw e;
      }
      const { status, statusText, headers, close } = parseHead(head.toString("latin1"));
      if (close) this.reusable = false;
      // 100 Continue and other interim answers come before the real one.
      if (status >= 100 && status < 200) {
        if (status === 101) throw new Error("the server switched protocols");
        continue;
      }
      return { status, statusText, headers, body: this.bodyOf(method, status, headers, done) };
    }
  }

  private bodyOf(
    method: string,
    status: number,
    headers: [string, string][],
    done: () => void,
  ): ReadableStream<Uint8Array> | null {
    const values = (name: string) => headers.filter(([n]) => n.toLowerCase() === name).map(([, v]) => v);
    const tokens = (name: string) =>
      values(name)
        .flatMap((v) => v.split(","))
        .map((t) => t.trim().toLowerCase())
        .filter(Boolean);
    if (tokens("connection").includes("close")) this.reusable = false;
    if (method === "HEAD" || status === 204 || status === 304) {
      this.socket.unref();
      done();
      return null;
    }
    let next: () => Promise<Buffer | null>;
    const encodings = tokens("transfer-encoding");
    if (encodings.length > 0) {
      if (encodings.at(-1) === "chunked") next = this.chunked();
      else {
        this.reusable = false;
        next = () => this.readSome(PAUSE_AT);
      }
      if (values("content-length").length > 0) this.reusable = false;
    } else if (values("content-length").length > 0) {
      const lengths = new Set(values("content-length").flatMap((v) => v.split(",").map((t) => t.trim())));
      const [only] = [...lengths];
      if (lengths.size !== 1 || !/^\d{1,15}$/.test(only!)) throw new Error("the server sent an invalid Content-Length");
      let left = Number(only);
      next = async () => {
        if (left === 0) return null;
        const chunk = await this.readSome(Math.min(left, PAUSE_AT));
        if (chunk === null)
          throw new ConnectionClosedError(`the server closed the connection ${left} bytes before the answer's end`);
        left -= chunk.length;
        return chunk;
      };
    } else {
      // Framed by the connection's end: the connection cannot carry another request.
      this.reusable = false;
      next = () => this.readSome(PAUSE_AT);
    }
    const watchdog = this.watchdog;
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      this.socket.unref();
      done();
    };
    return new ReadableStream<Uint8Array>(
      {
        pull: async (controller) => {
          try {
            const chunk = watchdog ? await watchdog.during(next()) : await next();
            if (chunk === null) {
              controller.close();
              finish();
            } else controller.enqueue(new Uint8Array(chunk));
          } catch (e) {
            this.destroy(e as Error);
            finish();
            controller.error(e);
          }
        },
        cancel: () => {
          this.destroy();
          finish();
        },
      },
      { highWaterMark: 0 },
    );
  }

  /** The chunked transfer coding's data, chunk by chunk; trailers are read and dropped. */
  private chunked(): () => Promise<Buffer | null> {
    let left = 0;
    let over = false;
    return async () => {
      if (over) return null;
      if (left === 0) {
        const line = (await this.readUntil(CRLF, MAX_LINE_BYTES, "a chunk size")).toString("latin1");
        const size = /^([0-9a-fA-F]{1,12})(?:\s*;.*)?$/.exec(line.trim());
        if (!size) throw new Error("the server sent an invalid chunk size");
        left = Number.parseInt(size[1]!, 16);
        if (left === 0) {
          while ((await this.readUntil(CRLF, MAX_LINE_BYTES, "a trailer")).length > 0);
          over = true;
          return null;
        }
      }
      const chunk = await this.readSome(Math.min(left, PAUSE_AT));
      if (chunk === null) throw new ConnectionClosedError("the server closed the connection inside a chunk");
      left -= chunk.length;
      if (left === 0 && !(await this.readUntil(CRLF, 2, "a chunk's end")).equals(Buffer.alloc(0)))
        throw new Error("a chunk did not end where its size said");
      return chunk;
    };
  }
}

const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: (.*))?$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function parseHead(text: string): { status: number; statusText: string; headers: [string, string][]; close: boolean } {
  const lines = text.split("\r\n");
  const status = STATUS_LINE.exec(lines[0] ?? "");
  if (!status)
    throw new Error(`the server did not answer in HTTP/1.1 (${JSON.stringify((lines[0] ?? "").slice(0, 40))})`);
  const headers: [string, string][] = [];
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":");
    const name = colon < 0 ? "" : line.slice(0, colon);
    if (!HEADER_NAME.test(name)) throw new Error("the server sent a malformed header");
    headers.push([name, line.slice(colon + 1).trim()]);
  }
  // An HTTP/1.0 answer closes its connection.
  return { status: Number(status[2]), statusText: status[3] ?? "", headers, close: status[1] === "0" };
}
