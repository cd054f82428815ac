/**
 * The transport to a server that proves itself (transport.ts): its connections are its own
 * (http1-connection.ts), each proven before it carries anything, replaced and proven again once closed. What
 * proves it is a ProofCheck: the admin token the command holds (tokenCheck), or, for a plain-http server
 * named with only a key, that it answers a challenge it was never sent before as the server proven earlier
 * did (sameServerCheck): a listener that took the port since cannot, having never seen that answer.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import { checkServerProof } from "../../common/server-proof-hmac";
import { Http1Connection, NoAnswerError, type OutgoingRequest } from "./http1-connection";
import {
  CredentialConnectionBusyError,
  CredentialWithheldError,
  carriesCredential,
  follow,
  isEventStream,
  isStreamRoute,
  NotProvenError,
  type ProofKey,
  RequestTimeoutError,
  responseOf,
  ServerChangedError,
  type Transport,
} from "./transport-base";
import { type UnprovenHold, unprovenHold } from "./unproven-hold";
import { Watchdog } from "./watchdog";

const IDEMPOTENT = new Set(["GET", "HEAD", "PUT", "DELETE", "OPTIONS"]);
/** A pooled connection idle this long is closed, not reused: the server's own idle limit (10 s) may be near. */
const STALE_MS = 4_000;
/**
 * A request that cannot be sent again (a POST) takes a kept connection only this fresh: one the
 * server is closing as it is reused would lose it, and a server's idle limit can be as short as a second.
 */
const FRESH_FOR_ONE_TRY_MS = 500;
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

/** How a connection's answer to the challenge is judged. */
export interface ProofCheck {
  /** The nonce a new connection is challenged with (never one a listener was challenged with before). */
  nonce(): string;
  /** Why `proof` (the answer's `proof` member, for `nonce`) does not prove the server; null when it does. */
  judge(nonce: string, proof: unknown): string | null;
  /**
   * Without the token, a proof can only be compared with one the proven server gave before. After each
   * proof, `wanted()` fresh challenges are sent on the proven connection and their proofs `learn`t: each is
   * spent on one later connection. A server that fails such a check once is never called again: no other
   * proof could be trusted after it.
   */
  learning?: { wanted(): number; nonce(): string; learn(nonce: string, proof: unknown): void };
}

const freshNonce = () => randomBytes(32).toString("base64url");

/** The server must hold the admin token: an HMAC of a fresh nonce and its URL (common/server-proof-hmac.ts). */
export function tokenCheck(key: ProofKey): ProofCheck {
  return {
    nonce: freshNonce,
    judge(nonce, proof) {
      if (checkServerProof(key.adminToken, nonce, key.url, proof)) return null;
      return proof === undefined ? "its answer carries no proof" : "its proof is wrong";
    },
  };
}

/** How many proofs a same-server check keeps learnt ahead: one spare, should the next connection fail. */
const LEARNT_AHEAD = 2;

/**
 * The server must be the one that answered the command's first connection. The first connection's answer is
 * taken on trust; on each proven connection the server is asked for the proofs of fresh nonces, and each
 * later connection is challenged with one of them (spent as it is sent: a nonce a foreign listener saw is
 * never sent again) and must answer what the proven server did. Nothing is known of the token; a server with
 * no proof at all cannot be held to this (NotProvenError on the first connection, or `heldWithoutProof`).
 */
export function sameServerCheck(): ProofCheck {
  let first = true;
  const learnt: { nonce: string; proof: Buffer }[] = [];
  const spent = new Map<string, Buffer | null>();
  return {
    nonce() {
      const next = learnt.shift() ?? { nonce: freshNonce(), proof: null };
      spent.set(next.nonce, next.proof);
      return next.nonce;
    },
    judge(nonce, proof) {
      const known = spent.get(nonce);
      spent.delete(nonce);
      if (typeof proof !== "string") return "its answer carries no proof";
      if (first) {
        first = false;
        return null;
      }
      const given = Buffer.from(proof);
      if (known && given.length === known.length && timingSafeEqual(given, known)) return null;
      return "it answers the challenge otherwise than it did at first";
    },
    learning: {
      wanted: () => LEARNT_AHEAD - learnt.length,
      nonce: freshNonce,
      learn(nonce, proof) {
        if (typeof proof === "string") learnt.push({ nonce, proof: Buffer.from(proof) });
      },
    },
  };
}

export interface ProvenTransportOptions {
  /**
   * What a server that gives no proof on the command's first connection gets (plain http named without an
   * admin token: no emulator). Without it, NotProvenError. With it, the server is held by that first
   * connection alone (unproven-hold.ts): everything carrying a key or token goes on it, one request after
   * another, and once it closed nothing carrying one is sent again (CredentialWithheldError): whoever
   * listens at that address on a new connection may be someone else.
   */
  heldWithoutProof?: boolean;
}

/** A transport of proven connections, proven by `check`; `url` is the server's own, as messages name it. */
export function provenTransport(
  check: ProofCheck,
  url: string,
  timeoutMs: number,
  options: ProvenTransportOptions = {},
): ProvenTransport {
  const idle: Http1Connection[] = [];
  let provenOnce = false;
  /** Set once a server held to a learnt proof failed it: nothing is sent to that address again. */
  let changed: ServerChangedError | null = null;
  /** Set when the first connection gave no proof and `heldWithoutProof`: connections are the only hold. */
  let unproven: UnprovenHold | null = null;

  const connect = (at: URL, watchdog: Watchdog) =>
    Http1Connection.open(at.hostname.replace(/^\[|\]$/g, ""), Number(at.port || 80), watchdog);

  /** A fresh connection, proven (or, to a server held without proof, a plain one: it carries no credential). */
  async function open(at: URL, watchdog: Watchdog, credential: boolean): Promise<Http1Connection> {
    if (unproven) return connect(at, watchdog);
    return openProven(at, watchdog, credential);
  }

  /** A fresh connection, proven: its answer to the challenge is checked before anything else goes on it. */
  async function openProven(at: URL, watchdog: Watchdog, credential: boolean): Promise<Http1Connection> {
    if (changed) throw changed;
    const connection = await connect(at, watchdog);
    const nonce = check.nonce();
    const why = await challenge(connection, at, watchdog, nonce)
      .then((answer) => ("why" in answer ? answer.why : check.judge(nonce, answer.proof)))
      .catch((e) => {
        if (watchdog.fired) throw e;
        return `it did not answer the challenge (${(e as Error).message})`;
      });
    if (why !== null) {
      if (!provenOnce && options.heldWithoutProof) {
        // Not an emulator: held by this connection alone, the one every credential goes on (when the server keeps it).
        unproven = unprovenHold(url, connection);
        if (!connection.closed && connection.reusable) return connection;
        connection.destroy();
        if (credential) throw new CredentialWithheldError(url, "closed");
        return connect(at, watchdog);
      }
      connection.destroy();
      if (!provenOnce) throw new NotProvenError(url, why);
      const e = new ServerChangedError(url, why);
      if (check.learning) changed = e;
      throw e;
    }
    provenOnce = true;
    if (check.learning) await learnOn(connection, at, watchdog, check.learning);
    return connection;
  }

  /** Asks the proven server on `connection` for the proofs later connections will be held to. */
  async function learnOn(
    connection: Http1Connection,
    at: URL,
    watchdog: Watchdog,
    learning: NonNullable<ProofCheck["learning"]>,
  ): Promise<void> {
    for (let n = learning.wanted(); n > 0; n--) {
      const nonce = learning.nonce();
      const answer = await challenge(connection, at, watchdog, nonce);
      if ("why" in answer) {
        connection.destroy();
        throw new NotProvenError(url, answer.why);
      }
      learning.learn(nonce, answer.proof);
    }
  }

  /** The server's answer to `nonce` on `connection`: its `proof` member, or why it gave none. */
  async function challenge(
    connection: Http1Connection,
    at: URL,
    watchdog: Watchdog,
    nonce: string,
  ): Promise<{ proof: unknown } | { why: string }> {
    const target = `/healthz?challenge=${nonce}`;
    const headers: [string, string][] = [
      ["Host", at.host],
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
          return { why: "its answer to the challenge is too long" };
        }
      }
    }
    if (answer.status < 200 || answer.status > 299) return { why: `it answered the challenge with ${answer.status}` };
    let proof: unknown;
    try {
      proof = (JSON.parse(rest) as { proof?: unknown } | null)?.proof;
    } catch {
      return { why: "its answer to the challenge is not JSON" };
    }
    // Proof and credentials must share a connection: a server that closes it after the proof cannot be held to it.
    if (!connection.reusable) return { why: "it closed the connection after its answer to the challenge" };
    return { proof };
  }

  /**
   * A proven connection: an idle one still open and idle for less than `freshFor` ms (`reused`), else a new
   * one proven first (the idle ones older than that are closed on the way). To a server held without proof,
   * a request with a credential waits for the one connection that carries them (an upload too: no other may
   * carry it).
   */
  async function acquire(
    url: URL,
    watchdog: Watchdog,
    freshFor: number,
    request: Request,
  ): Promise<{ connection: Http1Connection; reused: boolean }> {
    const credential = carriesCredential(request);
    if (unproven && credential) return { connection: await unproven.keyed(watchdog, request), reused: true };
    for (let c = idle.pop(); c; c = idle.pop()) {
      if (!c.closed && c.reusable && performance.now() - c.idleSince < freshFor) return { connection: c, reused: true };
      c.destroy();
    }
    return { connection: await open(url, watchdog, credential), reused: false };
  }

  const release = (c: Http1Connection) => {
    if (unproven?.release(c)) return;
    if (c.closed || !c.reusable) c.destroy();
    else {
      c.idleSince = performance.now();
      idle.push(c);
    }
  };

  async function send(request: Request): Promise<Response> {
    if (changed) throw changed;
    const url = new URL(request.url);
    const outgoing = await outgoingOf(request, url);
    const streamed = outgoing.body !== undefined && outgoing.body !== null && "stream" in outgoing.body;
    const retriable = IDEMPOTENT.has(request.method) && !streamed;
    // A streamed body (an upload) always gets a new connection: it cannot be sent again if a kept one turns out
    // closed, however fresh (a server may close an idle connection well before its nominal limit). A call sent
    // again does too: the server that closed one kept connection (its idle limit) closed the others with it.
    const freshFor = (attempt: number) => (streamed || attempt > 0 ? 0 : retriable ? STALE_MS : FRESH_FOR_ONE_TRY_MS);
    for (let attempt = 0; ; attempt++) {
      let connection: Http1Connection | null = null;
      let reused = false;
      // Expiring, it closes whatever connection it is timing (Http1Connection registers itself).
      const watchdog = new Watchdog(timeoutMs);
      // First of its cuts: the connection ends with this error, so a body cut mid-read says it too.
      const timedOut = new RequestTimeoutError(request.url, request.method, timeoutMs / 1000);
      watchdog.also(() => connection?.destroy(timedOut));
      const unfollow = follow(request.signal, (reason) => connection?.destroy(reason as Error));
      try {
        ({ connection, reused } = await acquire(url, watchdog, freshFor(attempt), request));
        const c = connection;
        request.signal?.throwIfAborted();
        const answer = await c.send(outgoing, watchdog, () => {
          watchdog.stop();
          unfollow();
          release(c);
        });
        if (isEventStream(answer.headers) && isStreamRoute(request.url)) watchdog.retire();
        return responseOf(request.url, answer.status, answer.statusText, answer.headers, answer.body);
      } catch (e) {
        watchdog.stop();
        unfollow();
        connection?.destroy();
        if (e instanceof CredentialConnectionBusyError) throw e;
        if (watchdog.fired) throw timedOut;
        if (request.signal?.aborted) throw request.signal.reason;
        // A kept connection the server closed just as it was reused: the request never reached an answer.
        if (e instanceof NoAnswerError && reused && retriable && attempt === 0) continue;
        throw e;
      }
    }
  }

  /** A first connection, proven and kept: throws NotProvenError, or the error that kept an answer away. */
  async function probe(): Promise<void> {
    const watchdog = new Watchdog(timeoutMs);
    try {
      release(await open(new URL(url), watchdog, false));
    } catch (e) {
      if (watchdog.fired) throw new RequestTimeoutError(`${url}/healthz`, "GET", timeoutMs / 1000);
      throw e;
    } finally {
      watchdog.stop();
    }
  }

  return {
    fetch: send,
    probe,
    async prove() {
      try {
        await probe();
        return null;
      } catch (e) {
        if (e instanceof NotProvenError || e instanceof ServerChangedError) return e.why;
        if (e instanceof RequestTimeoutError)
          return `it did not answer the challenge (no answer within ${timeoutMs / 1000} s)`;
        return `it did not answer the challenge (${(e as Error).message})`;
      }
    },
  };
}

/** A proven transport, and the first proof's own errors for a caller that needs them as they are. */
export interface ProvenTransport extends Transport {
  probe(): Promise<void>;
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
