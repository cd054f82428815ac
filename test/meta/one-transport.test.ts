/**
 * The tools call a server one way: through tools/calls/transport.ts, which proves a server on each connection
 * before it carries a credential, times every request and follows no redirect (both helpers send through it
 * too: tools/calls/helper-transport.ts). `fetch` pools connections out of sight: a poll once sent
 * `ext deploy --wait`'s key to whoever took a stopped server's port. This fails when a module of the tools
 * calls `fetch` itself, opens sockets or HTTP requests of its own, or makes a typed client without giving it
 * the transport's fetch.
 */
import { expect, test } from "bun:test";
import { type Call, callsIn, type Import, importsIn, sourceFiles, TOOLS } from "./source-scan";

const GLOBAL_FETCH = new Set(["fetch", "globalThis.fetch", "Bun.fetch", "window.fetch", "self.fetch"]);
const SOCKET_MODULES = /^(node:)?(net|http|https|tls|http2)$|^undici$/;
/** What of the socket modules opens a connection or a request (node:net's isIP and the like are fine). */
const SOCKET_NAMES = new Set(["*", "default", "connect", "createConnection", "request", "get", "Agent", "Socket"]);
const CLIENT_MAKERS = new Set(["createApiClient", "createAdminClient", "createClient"]);

/** Where a transport lives, each with why; an entry that no longer matches anything fails the test. */
const TRANSPORTS: { file: string; what: string; why: string }[] = [
  {
    file: "tools/calls/plain-transport.ts",
    what: "fetch",
    why: "the one transport: its path for servers it cannot prove",
  },
  { file: "tools/calls/http1-connection.ts", what: "node:net", why: "the one transport's own connections" },
];

export function strayCalls(calls: Call[], imports: Import[]): string[] {
  const found: string[] = [];
  for (const c of calls) {
    if (GLOBAL_FETCH.has(c.callee) || c.callee === "Bun.connect") found.push(`${c.file}:${c.line} ${c.callee}`);
    // A typed client always gets a fetch: the transport's (or a recording one built on it).
    if (CLIENT_MAKERS.has(c.callee) && !/\bfetch\b/.test(c.args[0] ?? ""))
      found.push(`${c.file}:${c.line} ${c.callee}`);
  }
  for (const i of imports)
    if (SOCKET_MODULES.test(i.module) && i.names.some((n) => SOCKET_NAMES.has(n)))
      found.push(`${i.file}:${i.line} ${i.module.startsWith("node:") ? i.module : `node:${i.module}`}`);
  return found;
}

const allowed = (line: string) => TRANSPORTS.some((t) => line.startsWith(`${t.file}:`) && line.endsWith(` ${t.what}`));

test("the check finds a fetch of its own, a socket or request of its own, and a typed client without the transport", () => {
  const sample = [
    'import http from "node:http";',
    'import { connect } from "node:net";',
    'import { isIP } from "node:net";',
    "const r = await fetch(url);",
    "await globalThis.fetch(new Request(url));",
    "const api = createApiClient({ baseUrl, apiKey });",
    "const ok = createApiClient({ baseUrl, apiKey, fetch: endpoints.transport.fetch });",
    "await options.outbound.fetch(request);",
    "Bun.serve({ async fetch(request) { return new Response(); } });",
  ].join("\n");
  expect(strayCalls(callsIn("sample.ts", sample), importsIn("sample.ts", sample))).toEqual([
    "sample.ts:4 fetch",
    "sample.ts:5 globalThis.fetch",
    "sample.ts:6 createApiClient",
    "sample.ts:1 node:http",
    "sample.ts:2 node:net",
  ]);
});

test("no module of the tools calls a server but through the one transport", () => {
  const files = sourceFiles(TOOLS);
  expect(files).toContain("tools/calls/plain-transport.ts");
  expect(files).toContain("tools/cli/commands/health.ts");
  const found = files.flatMap((file) => strayCalls(callsIn(file), importsIn(file)));
  expect(found.filter((l) => !allowed(l))).toEqual([]);
  const stale = TRANSPORTS.filter((t) => !found.some((l) => l.startsWith(`${t.file}:`) && l.endsWith(` ${t.what}`)));
  expect(stale).toEqual([]);
});
