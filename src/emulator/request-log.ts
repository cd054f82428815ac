/**
 * The recent developer-API requests, for assertions in tests and the dashboard: method, path (no query
 * string), final status, calling account, duration, plus a bounded detail with no secret in it
 * (request-detail.ts). A fixed-size ring buffer; subscribers (the SSE stream) hear of each entry.
 *
 * It is recorded by wrapping Elysia's whole request handler (`app.wrap`), because only there is the final
 * response known for every outcome: a handler result, an error envelope, an injected fault, a 404.
 */
import { type Clock, isoOf } from "../clock";
import { principalOf } from "../http/auth";
import { takeJsonBodyText } from "../http/body-limit";
import { isDeveloperApiPath, pathOf } from "../http/paths";
import type { RequestLogEntry } from "./model";
import {
  type CapturedDetail,
  captureRequest,
  captureResponse,
  detailOf,
  keepRequestBody,
  type RequestDetail,
} from "./request-detail";

export const REQUEST_LOG_CAPACITY = 500;

interface Entry {
  id: number;
  method: string;
  path: string;
  status: number;
  accountId: string | null;
  keyId: string | null;
  durationMs: number;
  atMs: number;
  detail: CapturedDetail;
}

export type RequestLogListener = (entry: RequestLogEntry) => void;

type Handle = (request: Request) => Response | Promise<Response>;

export class RequestLog {
  private readonly entries: (Entry | undefined)[];
  /** Index the next entry goes to. */
  private next = 0;
  private size = 0;
  private lastId = 0;
  private readonly listeners = new Set<RequestLogListener>();
  /** Key id → when it last authenticated a request (the key list's "last used"; memory only). */
  private readonly keyLastUsed = new Map<string, number>();

  constructor(
    private readonly clock: Clock,
    readonly capacity = REQUEST_LOG_CAPACITY,
  ) {
    this.entries = new Array(capacity);
  }

  get count(): number {
    return this.size;
  }

  record(entry: Omit<Entry, "id">): void {
    const full = entry as Entry;
    full.id = ++this.lastId;
    this.entries[this.next] = full;
    this.next = (this.next + 1) % this.capacity;
    if (this.size < this.capacity) this.size++;
    if (this.listeners.size > 0) {
      const summary = summaryOf(full);
      for (const listener of this.listeners) listener(summary);
    }
  }

  /** When the key last authenticated a logged request, or null (since start or the last clear). */
  lastUsedAt(keyId: string): string | null {
    const at = this.keyLastUsed.get(keyId);
    return at === undefined ? null : isoOf(at);
  }

  /** Hears of every entry recorded from now on; returns the unsubscribe function. */
  subscribe(listener: RequestLogListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** One entry still in the buffer, with its detail. */
  get(id: number): (RequestLogEntry & { detail: RequestDetail }) | null {
    for (let i = 1; i <= this.size; i++) {
      const e = this.entries[(this.next - i + this.capacity) % this.capacity]!;
      if (e.id === id) return { ...summaryOf(e), detail: detailOf(e.detail) };
    }
    return null;
  }

  /** Newest first, at most `limit`. */
  recent(limit = this.capacity): RequestLogEntry[] {
    const out: RequestLogEntry[] = [];
    const n = Math.min(limit, this.size);
    for (let i = 1; i <= n; i++) {
      const e = this.entries[(this.next - i + this.capacity) % this.capacity]!;
      out.push(summaryOf(e));
    }
    return out;
  }

  clear(): void {
    this.entries.fill(undefined);
    this.keyLastUsed.clear();
    this.next = 0;
    this.size = 0;
  }

  /**
   * For `app.wrap`: returns the handler wrapped with logging. Elysia calls this per request with the same
   * inner handler, so the wrapped function is built once and reused (no closure per request).
   */
  // biome-ignore lint/complexity/noBannedTypes: the signature Elysia's wrap hands over.
  wrapper(): (inner: Function, request: Request) => Handle {
    let inner: Handle | null = null;
    let wrapped: Handle | null = null;
    return (fn) => {
      if (fn !== inner) {
        inner = fn as Handle;
        wrapped = this.logged(inner);
      }
      return wrapped!;
    };
  }

  private logged(inner: Handle): Handle {
    return (request) => {
      const url = request.url;
      const path = pathOf(url);
      if (!isDeveloperApiPath(path)) return inner(request);
      // A duration is real elapsed time, not the emulator's clock (a frozen or moved clock would distort it).
      const started = performance.now();
      const atMs = this.clock.nowMs();
      const detail = captureRequest(request, url, path);
      const result = inner(request);
      // No closure on the synchronous path (most requests): the hot path allocates what the entry keeps.
      return result instanceof Promise
        ? result.then((response) => this.finish(request, path, response, detail, started, atMs))
        : this.finish(request, path, result, detail, started, atMs);
    };
  }

  private finish(
    request: Request,
    path: string,
    response: Response,
    detail: CapturedDetail,
    started: number,
    atMs: number,
  ): Response | Promise<Response> {
    // Taken whatever happens, so the text never outlives the request in the parser's hands.
    const parsedText = takeJsonBodyText(request);
    const bodyRead = detail.keepBody ? keepRequestBody(detail, request, parsedText) : null;
    captureResponse(detail, response);
    const principal = principalOf(request);
    if (principal) this.keyLastUsed.set(principal.keyId, atMs);
    this.record({
      method: request.method,
      path,
      status: response.status,
      accountId: principal?.accountId ?? null,
      keyId: principal?.keyId ?? null,
      durationMs: Math.round((performance.now() - started) * 100) / 100,
      atMs,
      detail,
    });
    return bodyRead ? bodyRead.then(() => response) : response;
  }
}

function summaryOf(e: Entry): RequestLogEntry {
  return {
    id: e.id,
    method: e.method,
    path: e.path,
    status: e.status,
    accountId: e.accountId,
    keyId: e.keyId,
    durationMs: e.durationMs,
    at: isoOf(e.atMs),
  };
}
