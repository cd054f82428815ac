/**
 * The one way the tools (the CLI, the deploy core, the parity tools) call a server. Every call has the one
 * per-request timeout (watchdog.ts) and no redirect is ever followed. What else it does depends on what the
 * tool holds:
 *
 *  - With the server's admin token (a found `ext serve`, or one named with a token), the server proves it
 *    holds the token (`GET /healthz?challenge=`, common/server-proof.ts) on each connection before that
 *    connection carries anything else; the transport holds those connections itself (http1-connection.ts).
 *    A connection that broke — the server stopped, restarted, or closed it — is replaced by a new one, proven
 *    again first. A server that then fails the proof ends the command: it is no longer the one the command
 *    started with, and it got a nonce, nothing more.
 *  - Without one (a real platform, a server named with only a key), there is nothing to prove. Over https,
 *    TLS names the server on every connection. Over plain http the transport holds the connections too
 *    (plain-transport.ts): an emulator is held to its first answer to the challenge on each new one; any
 *    other server by the command's first connection to it alone: everything that carries a key or token
 *    goes on that one, one request at a time, and nothing once it closed or once connecting failed
 *    (refused, reset): whoever listens there on a new connection may be someone else, even while the
 *    server keeps that first one open (it may have stopped listening).
 */
import { plainTransport } from "./plain-transport";
import { provenTransport, tokenCheck } from "./proven-transport";
import { boundedAnswer, type Transport, type TransportOptions } from "./transport-base";
import { UsageError } from "./usage-error";

export * from "./transport-base";

/** The default wait of one request, in seconds: an answer of the API, or a proof, comes in far less. */
export const DEFAULT_REQUEST_TIMEOUT_SECONDS = 30;
const MAX_REQUEST_TIMEOUT_SECONDS = 3600;

/** EXT_REQUEST_TIMEOUT as ms (the default when unset); a usage error before anything is sent when it is not one. */
export function requestTimeoutMs(given: string | null): number {
  if (given === null) return DEFAULT_REQUEST_TIMEOUT_SECONDS * 1000;
  const n = /^\d+$/.test(given.trim()) ? Number(given) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > MAX_REQUEST_TIMEOUT_SECONDS)
    throw new UsageError(
      `EXT_REQUEST_TIMEOUT must be a whole number of seconds from 1 to ${MAX_REQUEST_TIMEOUT_SECONDS} (got "${given}")`,
    );
  return n * 1000;
}

/** The transport to one server (its origin is every request's), for the life of a command. */
export function createTransport(options: TransportOptions): Transport {
  const transport = options.proof
    ? provenTransport(tokenCheck(options.proof), options.proof.url, options.timeoutMs)
    : plainTransport(options);
  // `ext proxy` forwards bodies as they come; everything else reads at most MAX_READ_ANSWER_BYTES of an answer.
  if (options.passthrough) return transport;
  return {
    prove: () => transport.prove(),
    fetch: async (request) => boundedAnswer(await transport.fetch(request), request.method),
  };
}
