/**
 * DNS rebinding: a web page at http://rebind.example:4780 whose name its owner re-points at 127.0.0.1 is,
 * to the browser, same-origin with itself, so it can read what a server on loopback answers — with the
 * published demo key, the whole developer API. The browser still sends the page's name in `Host`, so a
 * server bound to loopback answers only requests addressed to it by a loopback name or address. This is the
 * one home of that check: the pre-routing step (server/http/pre-routing.ts) runs it on every route.
 */

import { isLoopbackHostname } from "../../common/addresses";
import { dashboardHostname, isDashboardHostname } from "../../common/dashboard-links";
import { errors } from "../errors/catalog";

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
 * On a loopback bind (or one given `--allowed-hosts`), a request addressed by any other name than a loopback
 * one or an allowed one is refused, on every route, /healthz included. A name shaped as a dashboard origin's
 * (`<26 base32 letters>.localhost`, common/dashboard-links.ts) is accepted only when it is this run's: an old
 * one is a tab left open from an earlier run, whose requests this server does not take. `host` is what the
 * request was addressed to (server/http/request-url.ts).
 */
export function hostGate(allowedHosts: readonly string[] = [], dashboardLabel = ""): (host: string) => void {
  const allowed = new Set(allowedHosts);
  const dashboardName = dashboardHostname(dashboardLabel);
  // The last host let through: the verdict depends on the host alone, and nearly every request repeats it.
  let lastAllowed: string | null = null;
  return (host) => {
    if (host === lastAllowed) return;
    const name = hostnameOf(host).toLowerCase();
    if (isDashboardHostname(name)) {
      if (name !== dashboardName) throw errors.oldDashboardHost(host);
    } else if (!isLoopbackHostname(name) && !(allowed.size > 0 && allowed.has(name))) throw errors.foreignHost(host);
    lastAllowed = host;
  };
}
