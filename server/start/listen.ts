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

/**
 * The loopback addresses to hold beside `bound` (the address the listener got). A browser sends
 * `<label>.localhost` to 127.0.0.1 or [::1] only, never to another 127.x address: a server bound to 127.0.0.2
 * holds both of those too.
 */
export function twinAddresses(address: string): string[] {
  // An IPv4-mapped address (::ffff:127.0.0.1) is bound as the IPv4 address it names.
  const bound = /^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(address) ? address.slice("::ffff:".length) : address;
  if (bound === "::1") return ["127.0.0.1"];
  if (bound === "0.0.0.0" || bound === "127.0.0.1") return ["::1"];
  if (/^127\./.test(bound)) return ["127.0.0.1", "::1"];
  return [];
}

export interface Listening {
  primary: Server<undefined>;
  /** The listeners on the other loopback addresses (see twinAddresses); those the machine lacks are left out. */
  twins: Server<undefined>[];
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

/** Listens on `options.hostname` and its twins at the same port; throws PortInUseError when one is taken. */
export function listenOnLoopback(
  options: ServeOptions,
  boundAddress: (server: Server<undefined>) => string,
): Listening {
  for (let attempt = 1; ; attempt++) {
    const primary = serveOrExplain(options, options.hostname);
    const twins: Server<undefined>[] = [];
    let taken: string | null = null;
    for (const twinHost of twinAddresses(boundAddress(primary))) {
      try {
        twins.push(Bun.serve({ ...options, hostname: twinHost, port: primary.port! }) as Server<undefined>);
      } catch (e) {
        if (!inUse(e)) continue; // not on this machine (EADDRNOTAVAIL): nobody can hold it
        taken = twinHost;
        break;
      }
    }
    if (taken === null) return { primary, twins };
    for (const listener of [primary, ...twins]) void listener.stop(true);
    if (options.port === 0 && attempt < FREE_PORT_TRIES) continue;
    throw new PortInUseError(
      `port ${primary.port} on ${taken} is already in use by another program: this server listens on both loopback addresses (127.0.0.1 and ::1) at its port, so that no one else receives what a browser sends to the dashboard (choose another with --port, or --port 0 for a free one)`,
    );
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
