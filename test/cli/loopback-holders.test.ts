/**
 * Who holds the dashboard's port on loopback, from the kernel's socket tables (tools/cli/lib/loopback-holders.ts):
 * `ext dashboard` logs in only when every loopback address a browser may post to at that port is held by this
 * user or root. The tables here are written as Linux writes /proc/net/tcp and tcp6; one test reads the real ones.
 */
import { expect, test } from "bun:test";
import { loopbackListeners, loopbackRisk } from "../../tools/cli/lib/loopback-holders";

const HEAD = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode";
/** A table line: `address` as the kernel writes it, port 4780 (12AC), state `st`, owner `uid`. */
const line = (address: string, uid: number, st = "0A", port = "12AC") =>
  `   0: ${address}:${port} 00000000:0000 ${st} 00000000:00000000 00:00000000 00000000  ${uid}        0 1 1 0000000000000000 100 0 0 10 0`;
const V4_LOOPBACK = "0100007F";
const V4_ANY = "00000000";
const V6_LOOPBACK = "00000000000000000000000001000000";
const V6_ANY = "00000000000000000000000000000000";
const IF_INET6 = "00000000000000000000000000000001 01 80 10 80       lo\n";

const tables =
  (tcp: string[], tcp6: string[], ifInet6 = IF_INET6) =>
  (path: string) =>
    ({
      "/proc/net/tcp": [HEAD, ...tcp].join("\n"),
      "/proc/net/tcp6": [HEAD, ...tcp6].join("\n"),
      "/proc/net/if_inet6": ifInet6,
    })[path] ?? null;

test("both addresses held by this user (ext serve and its twin listener): nothing in the way", () => {
  expect(loopbackRisk(4780, 1000, tables([line(V4_LOOPBACK, 1000)], [line(V6_LOOPBACK, 1000)]))).toBeNull();
});

test("a forward holding 127.0.0.1 only: nothing holds [::1], so another user could", () => {
  expect(loopbackRisk(4780, 1000, tables([line(V4_LOOPBACK, 1000)], []))).toBe(
    "nothing listens on [::1]:4780, so another user could",
  );
  expect(loopbackRisk(4780, 1000, tables([line(V4_ANY, 0)], []))).toBe(
    "nothing listens on [::1]:4780, so another user could",
  );
});

test("another user on either address is named, whoever else holds the port", () => {
  expect(loopbackRisk(4780, 1000, tables([line(V4_LOOPBACK, 1000)], [line(V6_LOOPBACK, 1001)]))).toBe(
    "another user (uid 1001) listens on [::1]:4780",
  );
  expect(loopbackRisk(4780, 1000, tables([line(V4_ANY, 1001)], [line(V6_LOOPBACK, 1000)]))).toBe(
    "another user (uid 1001) listens on 127.0.0.1:4780",
  );
});

test("root's forward (a container runtime's proxy) and the IPv6 wildcard, which takes both, are enough", () => {
  expect(loopbackRisk(4780, 1000, tables([], [line(V6_ANY, 0)]), () => false)).toBeNull();
  expect(loopbackRisk(4780, 1000, tables([line(V4_LOOPBACK, 0)], [line(V6_LOOPBACK, 0)]))).toBeNull();
});

test("the IPv6 wildcard alone holds 127.0.0.1 only when it is dual-stack: an IPv6-only one leaves it free", () => {
  const wildcardOnly = tables([], [line(V6_ANY, 1000)]);
  expect(loopbackRisk(4780, 1000, wildcardOnly, () => false)).toBeNull();
  expect(loopbackRisk(4780, 1000, wildcardOnly, () => true)).toBe(
    "nothing listens on 127.0.0.1:4780 (the listener on [::]:4780 takes IPv6 only), so another user could",
  );
  // A listener of its own on 127.0.0.1: nothing to find out.
  expect(loopbackRisk(4780, 1000, tables([line(V4_LOOPBACK, 1000)], [line(V6_ANY, 1000)]), () => true)).toBeNull();
});

test("only listening sockets at this port count; a machine without [::1] needs no holder there", () => {
  const other = [line(V6_LOOPBACK, 1001, "0A", "12AD"), line(V6_LOOPBACK, 1001, "01")];
  expect(loopbackListeners([HEAD].join("\n"), [HEAD, ...other].join("\n"), 4780)).toEqual([]);
  expect(loopbackRisk(4780, 1000, tables([line(V4_LOOPBACK, 1000)], [], ""))).toBeNull();
  expect(loopbackRisk(4780, 1000, tables([], [], ""))).toBe("nothing listens on 127.0.0.1:4780, so another user could");
});

test("where the tables cannot be read (not Linux), nothing is claimed", () => {
  expect(loopbackRisk(4780, 1000, () => null)).toBeNull();
});

test("the real tables and a real bind: an IPv6-only wildcard is found out, a dual-stack one is enough", () => {
  const dual = Bun.serve({ hostname: "::", port: 0, fetch: () => new Response() });
  try {
    expect(loopbackRisk(dual.port!)).toBeNull();
  } finally {
    dual.stop(true);
  }
  const v6only = Bun.listen({ hostname: "::", port: 0, ipv6Only: true, socket: { data() {} } } as never) as {
    port: number;
    stop(force: boolean): void;
  };
  try {
    expect(loopbackRisk(v6only.port)).toBe(
      `nothing listens on 127.0.0.1:${v6only.port} (the listener on [::]:${v6only.port} takes IPv6 only), so another user could`,
    );
  } finally {
    v6only.stop(true);
  }
});

test("the real tables: a server on both loopback addresses at a port of its own is this user's", () => {
  const v4 = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  try {
    const v6 = (() => {
      try {
        return Bun.serve({ hostname: "::1", port: v4.port, fetch: () => new Response() });
      } catch {
        return null; // no [::1] on this machine
      }
    })();
    expect(loopbackRisk(v4.port!)).toBeNull();
    v6?.stop(true);
    if (v6) expect(loopbackRisk(v4.port!)).toBe(`nothing listens on [::1]:${v4.port}, so another user could`);
  } finally {
    v4.stop(true);
  }
});
