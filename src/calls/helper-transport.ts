/**
 * What both helpers' connections (client/emulator-connection.ts) send with: the tools' one transport
 * (transport.ts), so a helper proves its server on every new connection before that connection carries the
 * admin token or a key — as the CLI does — and every call has the one timeout and the one cap on answers. A
 * server that fails the proof rejects the call with a StartEmulatorError naming the helper's function.
 */
import { StartEmulatorError } from "../../client/errors";
import type { FetchFunction } from "../../client/index";
import { createTransport, DEFAULT_REQUEST_TIMEOUT_SECONDS, NotProvenError, ServerChangedError } from "./transport";

export function helperFetch(url: string, adminToken: string, who: string): FetchFunction {
  const transport = createTransport({
    timeoutMs: DEFAULT_REQUEST_TIMEOUT_SECONDS * 1000,
    proof: adminToken ? { adminToken, url } : null,
  });
  return async (request) => {
    try {
      return await transport.fetch(request);
    } catch (e) {
      if (e instanceof NotProvenError || e instanceof ServerChangedError)
        throw new StartEmulatorError(
          `${who}: the server at ${url} did not prove it is the emulator this admin token belongs to (${e.why}); nothing was sent to it. Is it still running at that address?`,
        );
      throw e;
    }
  };
}
