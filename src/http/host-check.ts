/**
 * DNS rebinding: a web page at http://rebind.example:4780 whose name its owner re-points at 127.0.0.1 is,
 * to the browser, same-origin with itself, so it can read what a server on loopback answers — with the
 * published demo key, the whole developer API. The browser still sends the page's name in `Host`, so a
 * server bound to loopback answers only requests addressed to it by a loopback name or address. This is the
 * one home of that check: the request gates (src/http/gates.ts) run it on every route.
 */
import { errors } from "../errors/catalog";
import type { RequestGate } from "./gates";
import { isLoopbackHostname } from "./loopback";

/** The name part of a Host header: `[::1]:4780` → `[::1]`, `localhost:4780` → `localhost`. */
export function hostnameOf(host: string): string {
  if (host.startsWith("[")) {
    const end = host.indexOf("]");
    return end < 0 ? host : host.slice(0, end + 1);
  }
  const colon = host.indexOf(":");
  return colon < 0 ? host : host.slice(0, colon);
}

/**
 * The Host a request was addressed to. A request made in process (`app.handle`) has no Host header: its
 * URL's host stands in, as Bun builds the URL of a request from a socket from the Host header.
 */
export function hostOf(request: Request): string {
  const header = request.headers.get("host");
  if (header !== null) return header;
  const url = request.url;
  const start = url.indexOf("//") + 2;
  const end = url.indexOf("/", start);
  return end < 0 ? url.slice(start) : url.slice(start, end);
}

/** True when the request was addressed to this machine by a loopback name or address, whatever the port. */
export function addressedToLoopback(request: Request): boolean {
  return isLoopbackHostname(hostnameOf(hostOf(request)));
}

/**
 * On a loopback bind (or one given `--allowed-hosts`), a request addressed by any other name than a loopback
 * one or an allowed one is refused, on every route, /healthz included.
 */
export function hostGate(allowedHosts: readonly string[] = []): RequestGate {
  const allowed = new Set(allowedHosts);
  return {
    matches: () => true,
    check(request) {
      if (addressedToLoopback(request)) return;
      if (allowed.size > 0 && allowed.has(hostnameOf(hostOf(request)).toLowerCase())) return;
      throw errors.foreignHost(hostOf(request));
    },
  };
}
