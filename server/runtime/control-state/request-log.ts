/**
 * The recent developer-API requests, for assertions in tests and the dashboard: method, path (no query
 * string), final status, calling account, duration, plus a bounded detail with no secret in it
 * (request-detail.ts). A fixed-size ring buffer; subscribers (the SSE stream) hear of each entry.
 *
 * It is recorded as each answer is reported (server/http/request-context.ts), before the answer is sent: every
 * outcome passes there — a handler's result, an error envelope, an injected fault, a 404.
 */

import { REQUEST_LOG_CAPACITY } from "../../../common/api-rules";
import { isoOf } from "../../base/clock";
import { type Answer, headersOfAnswer } from "../../http/request-context";
import type { RequestLogEntry } from "./model";
import {
  type CapturedDetail,
  captureAnswer,
  captureRequest,
  detailOf,
  keepRequestBody,
  type RequestDetail,
} from "./request-detail";

export { REQUEST_LOG_CAPACITY };

/** The header a client names itself with; only the values below are recorded, anything else is null. */
const CLIENT_HEADER = "x-ext-client";
const KNOWN_CLIENTS = ["dashboard"] as const;
type RequestClient = (typeof KNOWN_CLIENTS)[number];

/** The known client the request names, compared exactly (no case folding, no list): a header is not trusted further. */
function clientOf(headers: Headers): RequestClient | null {
  const value = headers.get(CLIENT_HEADER);
  return KNOWN_CLIENTS.find((known) => known === value) ?? null;
}

interface Entry {
  id: number;
  method: string;
  path: string;
  status: number;
  errorCode: string | null;
  accountId: string | null;
  keyId: string | null;
  durationMs: number;
  atMs: number;
  detail: CapturedDetail;
}

export type RequestLogListener = (entry: RequestLogEntry) => void;

export class RequestLog {
  private readonly entries: (Entry | undefined)[];
  /** Index the next entry goes to. */
  private next = 0;
  private size = 0;
  private lastId = 0;
  private readonly listeners = new Set<RequestLogListener>();
  /** Key id → when it last authenticated a request (the key list's "last used"; memory only). */
  private readonly keyLastUsed = new Map<string, number>();

  constructor(readonly capacity = REQUEST_LOG_CAPACITY) {
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
   * The answer observer: records a developer-API request. Returns a promise only when a small JSON body
   * still has to be read (a request answered before its body was, a 401 say): it is read before the answer
   * goes out, as an unread body is gone once it has.
   */
  readonly observe = (answer: Answer): Promise<void> | undefined => {
    const { request, context } = answer;
    // The developer API's requests only: the pre-routing step has placed the path in its part of the URL space.
    if (context.plane !== "api") return undefined;
    const detail = captureRequest(request, request.url, context.path);
    const parsedText = context.jsonBodyText;
    context.jsonBodyText = undefined;
    const bodyRead = detail.keepBody ? keepRequestBody(detail, request, parsedText) : null;
    const { value } = answer;
    const responseHeaders = value instanceof Response ? headersOfAnswer(context, value) : null;
    captureAnswer(detail, value, answer.status, answer.headers, responseHeaders);
    const principal = context.principal;
    if (principal) this.keyLastUsed.set(principal.keyId, context.atMs);
    this.record({
      method: request.method,
      path: context.path,
      status: answer.status,
      errorCode: answer.status >= 400 ? errorCodeOf(answer.value) : null,
      accountId: principal?.accountId ?? null,
      keyId: principal?.keyId ?? null,
      // Machine time, not the emulator's clock (a frozen or moved clock would distort it).
      durationMs: Math.round((performance.now() - context.startedMs) * 100) / 100,
      atMs: context.atMs,
      detail,
    });
    return bodyRead ?? undefined;
  };
}

/** The code of an error envelope answered as a value (`{error: {code}}`), the way every refusal is answered. */
function errorCodeOf(value: unknown): string | null {
  const code = (value as { error?: { code?: unknown } } | null)?.error?.code;
  return typeof code === "string" ? code : null;
}

function summaryOf(e: Entry): RequestLogEntry {
  return {
    id: e.id,
    method: e.method,
    path: e.path,
    status: e.status,
    errorCode: e.errorCode,
    accountId: e.accountId,
    keyId: e.keyId,
    // Read when the entry is shown, from the request's headers the detail keeps.
    client: clientOf(e.detail.requestHeaders),
    durationMs: e.durationMs,
    at: isoOf(e.atMs),
  };
}
