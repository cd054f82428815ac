/**
 * Listening on both loopback addresses. A browser resolves `<label>.localhost` (the dashboard's origin) to
 * both ::1 and 127.0.0.1 and may try ::1 first, as clients do for `localhost`. If this server held only
 * 127.0.0.1:PORT, another local user could listen on [::1]:PORT and receive what the owner's browser sends
 * to the dashboard — the login code among it. So a server bound to one loopback address (or to the IPv4
 * wildcard, which covers 127.0.0.1 but not ::1) also listens on the other at the same port, with the same
 * handler: the same gates, the same Host check. That twin address taken by someone else ends the start
 * with a clear message; an address the machine does not have (IPv6 off) nobody can take, so there is nothing
 * to hold. The IPv6 wildcard `::` is dual-stack (it covers 127.0.0.1 as well); any other address is not
 * loopback and the dashboard's name does not reach it, so it gets no twin.
 */
import type { Server } from "bun";

export class PortInUseError extends Error {
  override name = "PortInUseError";
}

/** The other loopback address to hold beside `bound` (the address the listener got), or null. */
export function twinAddress(bound: string): string | null {
  if (bound === "::1") return "127.0.0.1";
  if (bound === "0.0.0.0" || /^127\./.test(bound)) return "::1";
  return null;
}

export interface Listening {
  primary: Server<undefined>;
  /** The listener on the twin address; null when there is none to hold (see twinAddress). */
  twin: Server<undefined> | null;
}

export interface ServeOptions {
  hostname: string;
  port: number;
  reusePort: false;
  maxRequestBodySize: number;
  idleTimeout: number;
  fetch: (request: Request, server: Server<undefined>) => Response | Promise<Response>;
}

/** A port chosen by the system (--port 0) whose twin turns out taken is given back and another one tried. */
const FREE_PORT_TRIES = 5;

const inUse = (e: unknown) =>
  (e as NodeJS.ErrnoException).code === "EADDRINUSE" || /in use/i.test(String((e as Error).message));

/** Listens on `options.hostname` and its twin at the same port; throws PortInUseError when either is taken. */
export function listenOnLoopback(
  options: ServeOptions,
  boundAddress: (server: Server<undefined>) => string,
): Listening {
  for (let attempt = 1; ; attempt++) {
    const primary = serveOrExplain(options, options.hostname);
    const twinHost = twinAddress(boundAddress(primary));
    if (twinHost === null) return { primary, twin: null };
    try {
      return { primary, twin: Bun.serve({ ...options, hostname: twinHost, port: primary.port! }) as Server<undefined> };
    } catch (e) {
      if (!inUse(e)) return { primary, twin: null }; // not on this machine (EADDRNOTAVAIL): nobody can hold it
      void primary.stop(true);
      if (options.port === 0 && attempt < FREE_PORT_TRIES) continue;
      throw new PortInUseError(
        `port ${primary.port} on ${twinHost} is already in use by another program: this server listens on both loopback addresses (${options.hostname} and ${twinHost}) at the same port, so that no one else receives what a browser sends to the dashboard (choose another with --port, or --port 0 for a free one)`,
      );
    }
  }
}

function serveOrExplain(options: ServeOptions, host: string): Server<undefined> {
  try {
    return Bun.serve(options) as Server<undefined>;
  } catch (e) {
    if (inUse(e))
      throw new PortInUseError(
        `port ${options.port} on ${host} is already in use (choose another with --port, or --port 0 for a free one)`,
      );
    throw e;
  }
}
