/**
 * A server in front of an in-process emulator that differs from ext in known ways, for the parity tests:
 * each `Difference` changes one kind of answer; `failAfterCreate` makes every request after the scratch
 * create answer 500 (DELETE too, unless `deleteWorks`); `holdOn` keeps a matching request unanswered until
 * released (to interrupt a run midway). Real sockets, port 0.
 */
export type Difference =
  | "create-200" // POST /extensions answers 200 instead of 201
  | "401-code" // a 401 carries code invalid_token
  | "list-missing-field" // list items lack installCount
  | "404-no-status" // 404 envelopes lack status
  | "secret-echo"; // a secret PUT answers 200 echoing the value

export interface DifferingOptions {
  differences?: Difference[];
  failAfterCreate?: boolean;
  deleteWorks?: boolean;
  holdOn?: (method: string, path: string) => boolean;
  /** The first matching request is answered 429 with Retry-After: 1 (a window the user's traffic filled). */
  rateLimitOnce?: (method: string, path: string) => boolean;
}

export interface DifferingServer {
  url: string;
  /** Resolves once a held request has arrived. */
  held: Promise<void>;
  release(): void;
  /** Requests seen, as `METHOD /path`. */
  seen: string[];
  stop(): void;
}

const json = (status: number, body: unknown, headers: Headers) => {
  const h = new Headers(headers);
  h.delete("content-length");
  h.set("content-type", "application/json");
  return new Response(JSON.stringify(body), { status, headers: h });
};

export function startDifferingServer(upstream: string, options: DifferingOptions = {}): DifferingServer {
  const differences = new Set(options.differences ?? []);
  let created = false;
  let limited = false;
  let reached!: () => void;
  const held = new Promise<void>((r) => (reached = r));
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const seen: string[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const url = new URL(req.url);
      const path = url.pathname;
      seen.push(`${req.method} ${path}`);
      if (options.holdOn?.(req.method, path)) {
        reached();
        await released;
      }
      if (!limited && options.rateLimitOnce?.(req.method, path)) {
        limited = true;
        const error = { code: "rate_limited", message: "Too many requests.", status: 429 };
        return json(429, { error }, new Headers({ "retry-after": "1" }));
      }
      if (options.failAfterCreate && created && !(options.deleteWorks && req.method === "DELETE"))
        return json(
          500,
          { error: { code: "internal_error", message: "Unexpected server error.", status: 500 } },
          new Headers(),
        );
      const body = req.method === "GET" || req.method === "HEAD" ? undefined : await req.arrayBuffer();
      const headers = new Headers(req.headers);
      headers.delete("host");
      const answer = await fetch(upstream + path + url.search, {
        method: req.method,
        headers,
        body,
        redirect: "manual",
      });
      const text = await answer.text();
      const parsed = text ? (JSON.parse(text) as Record<string, any>) : null;
      if (req.method === "POST" && path === "/developer/v1/extensions" && answer.status === 201) {
        created = true;
        if (differences.has("create-200")) return json(200, parsed, answer.headers);
      }
      if (answer.status === 401 && differences.has("401-code"))
        return json(401, { error: { ...parsed?.error, code: "invalid_token" } }, answer.headers);
      if (answer.status === 404 && differences.has("404-no-status")) {
        const { status: _status, ...rest } = parsed?.error ?? {};
        return json(404, { error: rest }, answer.headers);
      }
      if (
        req.method === "GET" &&
        path === "/developer/v1/extensions" &&
        answer.status === 200 &&
        differences.has("list-missing-field")
      )
        return json(
          200,
          { extensions: parsed?.extensions.map(({ installCount: _c, ...e }: Record<string, unknown>) => e) },
          answer.headers,
        );
      if (req.method === "PUT" && path.includes("/secrets/") && answer.status === 204 && differences.has("secret-echo"))
        return json(200, JSON.parse(new TextDecoder().decode(body)), answer.headers);
      const h = new Headers(answer.headers);
      h.delete("content-encoding");
      h.delete("content-length");
      return new Response(answer.status === 204 ? null : text, { status: answer.status, headers: h });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, held, release, seen, stop: () => server.stop(true) };
}
