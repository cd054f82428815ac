/**
 * The one server-sent-events reader: `data:` frames of a `text/event-stream` response, each parsed as JSON.
 * fetch + a stream reader rather than EventSource, which cannot send the Authorization header.
 */
import { apiCallError } from "./errors";

export interface ReadEventsOptions {
  /** Longest event accepted, in characters: a server that never ends a frame cannot grow memory without bound. */
  maxEventChars?: number;
}

const DEFAULT_MAX_EVENT_CHARS = 1 << 20;

/**
 * Yields the parsed `data` of each event (several `data:` lines joined by newlines, as the SSE format says);
 * comments and events without data are skipped. Leaving the loop early cancels the response body.
 * `T` is what the caller knows the stream carries; nothing checks it.
 */
export async function* readEvents<T = unknown>(
  response: Response,
  options: ReadEventsOptions = {},
): AsyncGenerator<T, void, undefined> {
  if (!response.ok) {
    let body: unknown;
    try {
      body = response.bodyUsed ? undefined : await response.json();
    } catch {
      body = undefined;
    }
    throw apiCallError(response, body);
  }
  if (!response.body) return;
  const max = options.maxEventChars ?? DEFAULT_MAX_EVENT_CHARS;
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let data: string[] = [];
  let dataChars = 0;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      for (;;) {
        const end = buffer.search(/\r\n|\r|\n/);
        // A lone "\r" at the end may be the first half of "\r\n": wait for the next chunk unless the stream ended.
        if (end < 0 || (!done && end === buffer.length - 1 && buffer[end] === "\r")) break;
        const line = buffer.slice(0, end);
        buffer = buffer.slice(buffer.startsWith("\r\n", end) ? end + 2 : end + 1);
        if (line === "") {
          if (data.length > 0) yield JSON.parse(data.join("\n")) as T;
          data = [];
          dataChars = 0;
        } else if (line === "data" || line.startsWith("data:")) {
          const value = line.slice(5).replace(/^ /, "");
          dataChars += value.length + 1;
          if (dataChars > max) throw new Error(`an event of the stream is longer than ${max} characters`);
          data.push(value);
        }
      }
      if (buffer.length > max) throw new Error(`an event of the stream is longer than ${max} characters`);
      if (done) return;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
