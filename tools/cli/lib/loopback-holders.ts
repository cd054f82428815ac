/**
 * Who holds a port on this machine's loopback, as the kernel's socket tables say (Linux: /proc/net/tcp and
 * tcp6, which every user may read). A browser sends what it posts to `<label>.localhost:PORT` (the dashboard's
 * origin) to [::1]:PORT or to 127.0.0.1:PORT, whichever answers; `ext serve` holds both, but a forward (a
 * container's published port, `ssh -L`, a port-forwarding tool) may hold only one, and another local user can
 * listen on the other and receive the login code. No challenge tells them apart: a listener that relays to the
 * real server answers as the server does. The owner of a listening socket is what the kernel records, so
 * `ext dashboard` checks that before it asks for a code: each loopback address the browser may use at the port
 * is held, and only by this user or root.
 */
import { readFileSync } from "node:fs";

const LISTEN = "0A";
const IPV4 = { loopback: "0100007F", any: "00000000" };
/** Words of 4 bytes, each little-endian, as /proc/net/tcp6 writes an address. */
const IPV6 = {
  loopback: "00000000000000000000000001000000",
  any: "00000000000000000000000000000000",
  mappedLoopback: "0000000000000000FFFF00000100007F",
  mappedAny: "0000000000000000FFFF000000000000",
};

interface Listener {
  address: "127.0.0.1" | "[::1]";
  uid: number;
  /** Counted for 127.0.0.1 as the IPv6 wildcard: true only if it is dual-stack, which the tables do not say. */
  wildcard?: true;
}

/** The listeners on `port` that take what a browser sends to 127.0.0.1 or [::1], by the table's lines. */
export function loopbackListeners(tcp: string, tcp6: string, port: number): Listener[] {
  const hexPort = port.toString(16).toUpperCase().padStart(4, "0");
  const found: Listener[] = [];
  for (const [table, v6] of [
    [tcp, false],
    [tcp6, true],
  ] as const)
    for (const line of table.split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 8 || fields[3] !== LISTEN) continue;
      const [address, at] = fields[1]!.split(":");
      if (at !== hexPort) continue;
      const uid = Number(fields[7]);
      if (!v6) {
        if (address === IPV4.loopback || address === IPV4.any) found.push({ address: "127.0.0.1", uid });
      } else if (address === IPV6.loopback) found.push({ address: "[::1]", uid });
      else if (address === IPV6.mappedLoopback || address === IPV6.mappedAny) found.push({ address: "127.0.0.1", uid });
      // The IPv6 wildcard takes both (dual-stack, Linux's default): counted for each.
      else if (address === IPV6.any)
        found.push({ address: "[::1]", uid }, { address: "127.0.0.1", uid, wildcard: true });
    }
  return found;
}

/**
 * Why a browser posting to `<label>.localhost:port` could reach someone else, or null when both loopback
 * addresses there are held by `uid` or root (an address the machine lacks needs no holder: nobody can take it).
 * Null too where the tables cannot be read (not Linux): docs/security.md says so.
 */
export function loopbackRisk(
  port: number,
  uid = process.getuid?.(),
  read: (path: string) => string | null = readTable,
  bindable: (address: string, port: number) => boolean = canBind,
): string | null {
  const tcp = read("/proc/net/tcp");
  if (tcp === null || uid === undefined) return null;
  const tcp6 = read("/proc/net/tcp6") ?? "";
  const hasIpv6Loopback = /^0{31}1\s.*\blo$/m.test(read("/proc/net/if_inet6") ?? "");
  const listeners = loopbackListeners(tcp, tcp6, port);
  const foreign = listeners.find((l) => l.uid !== uid && l.uid !== 0);
  if (foreign) return `another user (uid ${foreign.uid}) listens on ${foreign.address}:${port}`;
  const wanted = hasIpv6Loopback ? (["127.0.0.1", "[::1]"] as const) : (["127.0.0.1"] as const);
  const missing = wanted.find((a) => !listeners.some((l) => l.address === a));
  if (missing) return `nothing listens on ${missing}:${port}, so another user could`;
  // Held for IPv4 by the IPv6 wildcard alone: only if it is not IPv6-only, which a bind of our own finds out.
  const v4 = listeners.filter((l) => l.address === "127.0.0.1");
  if (v4.every((l) => l.wildcard) && bindable("127.0.0.1", port))
    return `nothing listens on 127.0.0.1:${port} (the listener on [::]:${port} takes IPv6 only), so another user could`;
  return null;
}

/** Whether this process could listen on `address`:`port` now (then it lets go at once): nobody holds it. */
function canBind(address: string, port: number): boolean {
  try {
    Bun.listen({ hostname: address, port, socket: { data() {} } }).stop(true);
    return true;
  } catch {
    return false;
  }
}

/** A kernel table's text, or null where there is none to read (not Linux). */
function readTable(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}
