/**
 * What both helpers' connections (client/emulator-connection.ts) send with: the tools' one transport
 * (transport.ts), so a helper proves its server on every new connection before that connection carries the
 * admin token or a key — as the CLI does — and every call has the one timeout (EXT_REQUEST_TIMEOUT, as for
 * the CLI; 30 s by default) and the one cap on answers. A server that fails the proof rejects the call with
 * a StartEmulatorError naming the helper's function.
 */
import { StartEmulatorError } from "../../client/errors";
import type { FetchFunction } from "../../client/index";
import { parseClientEnv } from "../config";
import { NoAnswerError } from "./http1-connection";
import { createTransport, NotProvenError, requestTimeoutMs, ServerChangedError, type Transport } from "./transport";

export function helperFetch(url: string, adminToken: string, who: string): FetchFunction {
  let transport: Transport | null = null;
  return async (request) => {
    // Made by the first call: a wrong EXT_REQUEST_TIMEOUT rejects a call, saying so, rather than the start.
    transport ??= createTransport({
      timeoutMs: requestTimeoutMs(parseClientEnv().requestTimeout),
      proof: adminToken ? { adminToken, url } : null,
    });
    try {
      return await transport.fetch(request);
    } catch (e) {
      if (e instanceof NotProvenError || e instanceof ServerChangedError)
        throw new StartEmulatorError(
          `${who}: the server at ${url} did not prove it is the emulator this admin token belongs to (${e.why}); nothing was sent to it. Is it still running at that address?`,
        );
      // Nothing answered (refused, reset): say where the call went, the socket's error as the cause.
      if (e instanceof NoAnswerError || typeof (e as { code?: unknown })?.code === "string") {
        const u = new URL(request.url);
        throw new Error(
          `${request.method} ${u.origin}${u.pathname}: no answer from the emulator (${(e as Error).message})`,
          {
            cause: e,
          },
        );
      }
      throw e;
    }
  };
}
