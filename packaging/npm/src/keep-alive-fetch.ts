/**
 * A `fetch` for Node on node:http(s) over kept-alive connections, for the Node helper's clients: a test
 * suite calls reset() before every test, and Node's own fetch costs several times more per call than a
 * plain request on a reused socket. The one http.request of packaging/: the transport under the typed
 * client (client/ also runs in browsers, so it has no node:http).
 */
import http from "node:http";
import https from "node:https";

/** Idle sockets close before the server's own idle timeout could close one under a request. */
const IDLE_SOCKET_MS = 4_000;

export interface KeepAliveFetch {
  fetch(request: Request): Promise<Response>;
  /** Closes the kept connections. */
  close(): void;
}

/** Response headers as pairs, repeated ones (set-cookie) kept apart. */
function headerPairs(raw: string[]): [string, string][] {
  const pairs: [string, string][] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) pairs.push([raw[i] as string, raw[i + 1] as string]);
  return pairs;
}

export function keepAliveFetch(): KeepAliveFetch {
  // The agents unref idle sockets: a kept connection never keeps the test process alive.
  const agents = {
    http: new http.Agent({ keepAlive: true, timeout: IDLE_SOCKET_MS }),
    https: new https.Agent({ keepAlive: true, timeout: IDLE_SOCKET_MS }),
  };
  const fetch = async (request: Request): Promise<Response> => {
    const target = new URL(request.url);
    const secure = target.protocol === "https:";
    if (!secure && target.protocol !== "http:") throw new TypeError(`unsupported protocol in ${request.url}`);
    const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
    const headers: Record<string, string> = Object.fromEntries(request.headers);
    if (body) headers["content-length"] = String(body.byteLength);
    return new Promise<Response>((resolve, reject) => {
      const req = (secure ? https : http).request(
        target,
        { method: request.method, headers, agent: secure ? agents.https : agents.http, signal: request.signal },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("error", reject);
          res.on("end", () => {
            const status = res.statusCode ?? 0;
            const empty = status === 204 || status === 304 || request.method === "HEAD";
            resolve(
              new Response(empty ? null : Buffer.concat(chunks), {
                status,
                statusText: res.statusMessage ?? "",
                headers: headerPairs(res.rawHeaders),
              }),
            );
          });
        },
      );
      // No answer at all (the server is gone, a wrong URL): say where (not the query: a challenge's nonce is
      // noise), keep the socket error as the cause.
      req.on("error", (e) =>
        reject(
          new Error(
            `${request.method} ${target.origin}${target.pathname}: no answer from the emulator (${e.message})`,
            {
              cause: e,
            },
          ),
        ),
      );
      req.end(body);
    });
  };
  return {
    fetch,
    close() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}
