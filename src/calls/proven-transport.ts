/**
 * The transport to a server that proves it holds the admin token (transport.ts): its connections are its
 * own (http1-connection.ts), each proven before it carries anything, replaced and proven again once closed.
 */
import { randomBytes } from "node:crypto";
import { checkServerProof } from "../auth/server-proof";
import { Http1Connection, NoAnswerError, type OutgoingRequest } from "./http1-connection";
import {
  follow,
  isEventStream,
  NotProvenError,
  type ProofKey,
  RequestTimeoutError,
  responseOf,
  ServerChangedError,
  type Transport,
} from "./transport-base";
import { Watchdog } from "./watchdog";

const IDEMPOTENT = new Set(["GET", "HEAD", "PUT", "DELETE", "OPTIONS"]);
/** A pooled connection idle this long is closed, not reused: the server's own idle limit (10 s) may be near. */
const STALE_MS = 4_000;
/** How much of a proof's answer is read. */
const MAX_PROOF_BYTES = 64 * 1024;
/** Not forwarded by the pinned connections: they frame the request themselves. */
const FRAMING_HEADERS = new Set([
  "host",
  "connection",
  "content-length",
  "transfer-encoding",
  "keep-alive",
  "te",
  "upgrade",
  "expect",
]);

export function provenTransport(key: ProofKey, timeoutMs: number): Transport {
  const idle: Http1Connection[] = [];
  let provenOnce = false;

  /** A fresh connection, proven: its answer to the challenge is checked before anything else goes on it. */
  async function openProven(url: URL, watchdog: Watchdog): Promise<Http1Connection> {
    const connection = await Http1Connection.open(
      url.hostname.replace(/^\[|\]$/g, ""),
      Number(url.port || 80),
      watchdog,
    );
    const why = await proofOn(connection, url, watchdog).catch((e) => {
      if (watchdog.fired) throw e;
      return `it did not answer the challenge (${(e as Error).message})`;
    });
    if (why !== null) {
      connection.destroy();
      if (provenOnce) throw new ServerChangedError(key.url, why);
      throw new NotProvenError(key.url, why);
    }
    provenOnce = true;
    return connection;
  }

  async function proofOn(connection: Http1Connection, url: URL, watchdog: Watchdog): Promise<string | null> {
    const nonce = randomBytes(32).toString("base64url");
    const target = `/healthz?challenge=${nonce}`;
    const headers: [string, string][] = [
      ["Host", url.host],
      ["Accept", "application/json"],
    ];
    const answer = await connection.send({ method: "GET", target, headers, body: null }, watchdog, () => {});
    let rest = "";
    if (answer.body) {
      const reader = answer.body.getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        rest += new TextDecoder().decode(value);
        if (rest.length > MAX_PROOF_BYTES) {
          connection.destroy();
          return "its answer to the challenge is too long";
        }
      }
    }
    if (answer.status < 200 || answer.status > 299) return `it answered the challenge with ${answer.status}`;
    let proof: unknown;
    try {
      proof = (JSON.parse(rest) as { proof?: unknown } | null)?.proof;
    } catch {
      return "its answer to the challenge is not JSON";
    }
    // Proof and credentials must share a connection: a server that closes it after the proof cannot be held to it.
    if (!connection.reusable) return "it closed the connection after its answer to the challenge";
    if (checkServerProof(key.adminToken, nonce, key.url, proof)) return null;
    return proof === undefined ? "its answer carries no proof" : "its proof is wrong";
  }

  /** A proven connection: an idle one still open (`reused`), else a new one proven first. */
  async function acquire(url: URL, watchdog: Watchdog): Promise<{ connection: Http1Connection; reused: boolean }> {
    for (let c = idle.pop(); c; c = idle.pop()) {
      if (!c.closed && c.reusable && performance.now() - c.idleSince < STALE_MS) return { connection: c, reused: true };
      c.destroy();
    }
    return { connection: await openProven(url, watchdog), reused: false };
  }

  const release = (c: Http1Connection) => {
    if (c.closed || !c.reusable) c.destroy();
    else {
      c.idleSince = performance.now();
      idle.push(c);
    }
  };

  async function send(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const outgoing = await outgoingOf(request, url);
    const retriable = IDEMPOTENT.has(request.method) && !(outgoing.body && "stream" in outgoing.body);
    for (let attempt = 0; ; attempt++) {
      let connection: Http1Connection | null = null;
      let reused = false;
      // Expiring, it closes whatever connection it is timing (Http1Connection registers itself).
      const watchdog = new Watchdog(timeoutMs);
      const unfollow = follow(request.signal, (reason) => connection?.destroy(reason as Error));
      try {
        ({ connection, reused } = await acquire(url, watchdog));
        const c = connection;
        request.signal?.throwIfAborted();
        const answer = await c.send(outgoing, watchdog, () => {
          watchdog.stop();
          unfollow();
          release(c);
        });
        if (isEventStream(answer.headers)) watchdog.retire();
        return responseOf(request.url, answer.status, answer.statusText, answer.headers, answer.body);
      } catch (e) {
        watchdog.stop();
        unfollow();
        connection?.destroy();
        if (watchdog.fired) throw new RequestTimeoutError(request.url, request.method, timeoutMs / 1000);
        if (request.signal?.aborted) throw request.signal.reason;
        // A kept connection the server closed just as it was reused: the request never reached an answer.
        if (e instanceof NoAnswerError && reused && retriable && attempt === 0) continue;
        throw e;
      }
    }
  }

  return {
    fetch: send,
    async prove() {
      const url = new URL(key.url);
      const watchdog = new Watchdog(timeoutMs);
      try {
        release(await openProven(url, watchdog));
        return null;
      } catch (e) {
        if (e instanceof NotProvenError || e instanceof ServerChangedError)
          return e.message.slice(e.message.indexOf("(") + 1, e.message.lastIndexOf(")"));
        return `it did not answer the challenge (${watchdog.fired ? `no answer within ${timeoutMs / 1000} s` : (e as Error).message})`;
      } finally {
        watchdog.stop();
      }
    },
  };
}

/** The request as the pinned connection sends it: its own framing, the body whole or streamed with its length. */
async function outgoingOf(request: Request, url: URL): Promise<OutgoingRequest> {
  const headers: [string, string][] = [["Host", url.host]];
  for (const [name, value] of request.headers) if (!FRAMING_HEADERS.has(name)) headers.push([name, value]);
  let body: OutgoingRequest["body"] = null;
  const length = Number(request.headers.get("content-length") ?? Number.NaN);
  if (request.body && Number.isSafeInteger(length) && length >= 0) body = { stream: request.body, length };
  else if (request.body) body = { bytes: new Uint8Array(await request.arrayBuffer()) };
  return { method: request.method, target: url.pathname + url.search, headers, body };
}
