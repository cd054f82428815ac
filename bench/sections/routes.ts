/**
 * Every hot route of the developer API under wrk at 64 connections, each beside the bare Bun.serve ceiling
 * answering the very status and bytes the emulator answered that route (bench/ceiling.ts), measured one
 * right after the other in the same run: the ratio of the two is the cost of everything that is ours
 * (routing, auth, rate limiting, request log, validation, SQLite, the handler). The list is also measured at
 * one connection (latency) and against Prism mocking our own OpenAPI document (a peer, not a target).
 * Rate limits are off except on the 429 row, which runs on its own server whose window is spent.
 */

import { type LoadOptions, type LoadResult, runLoad } from "../lib/load";
import { pct, table } from "../lib/markdown";
import { type Server, stopServer } from "../lib/proc";
import type { BenchSection, SectionContext, TargetCheck } from "../lib/results";
import {
  ADMIN_HEADERS,
  AUTH_HEADERS,
  benchFixture,
  type Emulator,
  extraAccountKey,
  LIST_PATH,
  startCeiling,
  startEmulator,
  startPrism,
  startWriteCeiling,
  stopEmulator,
} from "../lib/servers";

const API = "/developer/v1";
const JSON_TYPE = { "content-type": "application/json" };

interface RouteSpec {
  id: string;
  label: string;
  method: string;
  path: string;
  status: number;
  /** The emulator this row runs on: rate limits off (main) or on, with the demo key's window spent (limited). */
  server: "main" | "limited";
  headers: Record<string, string>;
  body?: string;
  vary?: LoadOptions["vary"];
  /** A write: also measured beside the fair write ceiling (bench/write-ceiling.ts). */
  write?: boolean;
}

/** Accounts the create row spreads its writes over (each may hold 1,000 extensions: benchFixture). */
const CREATE_ACCOUNTS = 200;

export function routeSpecs(): RouteSpec[] {
  const auth = AUTH_HEADERS;
  return [
    {
      id: "list",
      label: "GET /extensions",
      method: "GET",
      path: LIST_PATH,
      status: 200,
      server: "main",
      headers: auth,
    },
    {
      id: "get",
      label: "GET /extensions/:id",
      method: "GET",
      path: `${API}/extensions/ext_bench_01`,
      status: 200,
      server: "main",
      headers: auth,
    },
    {
      id: "create",
      write: true,
      label: "POST /extensions",
      method: "POST",
      path: `${API}/extensions`,
      status: 201,
      server: "main",
      headers: JSON_TYPE,
      body: '{"name":"Bench {n}","short_description":"made by the bench"}',
      vary: { keys: Array.from({ length: CREATE_ACCOUNTS }, (_, i) => extraAccountKey(i)) },
    },
    {
      id: "patch",
      write: true,
      label: "PATCH /extensions/:id",
      method: "PATCH",
      path: `${API}/extensions/ext_bench_02`,
      status: 200,
      server: "main",
      headers: { ...auth, ...JSON_TYPE },
      body: '{"description":"Changed {n}"}',
      vary: {},
    },
    {
      id: "secret",
      write: true,
      label: "PUT /extensions/:id/secrets/:key (AES-GCM)",
      method: "PUT",
      path: `${API}/extensions/ext_bench_03/secrets/API_TOKEN`,
      status: 204,
      server: "main",
      headers: { ...auth, ...JSON_TYPE },
      body: '{"value":"s3cret-value-{n}"}',
      vary: {},
    },
    {
      id: "installs",
      label: "GET /extensions/:id/installs",
      method: "GET",
      path: `${API}/extensions/ext_bench_01/installs`,
      status: 200,
      server: "main",
      headers: auth,
    },
    {
      id: "limits",
      label: "GET /extensions/:id/limits",
      method: "GET",
      path: `${API}/extensions/ext_bench_01/limits`,
      status: 200,
      server: "main",
      headers: auth,
    },
    {
      id: "unauthorized",
      label: "401: GET /extensions with an unknown key",
      method: "GET",
      path: LIST_PATH,
      status: 401,
      server: "main",
      headers: { authorization: "Bearer ext_not_a_real_key_000000000000000000000" },
    },
    {
      id: "rate_limited",
      label: "429: GET /extensions past the rate window",
      method: "GET",
      path: LIST_PATH,
      status: 429,
      server: "limited",
      headers: auth,
    },
  ];
}

export interface RouteRow {
  id: string;
  label: string;
  status: number;
  ext: LoadResult;
  ceiling: LoadResult;
  /** ext req/s ÷ ceiling req/s. */
  ratio: number;
  /** Ceiling CPU per request ÷ ext CPU per request: the same ratio with the load generator taken out. */
  cpuRatio: number | null;
  /** Writes only: bare Bun.serve + bun:sqlite doing the same write, and ext ÷ it. */
  writeCeiling?: LoadResult;
  writeRatio?: number;
}

export interface RoutesResult {
  connections: number;
  durationS: number;
  rows: RouteRow[];
  /** The list at one connection (latency, not throughput) and Prism's list at 64, for scale. */
  listAtOne: { ext: LoadResult; ceiling: LoadResult };
  prism: LoadResult | null;
  listBodyBytes: number;
}

/** One request as wrk will send it ({n} → 0), to check the status and give the ceiling the same bytes. */
async function capture(emu: Emulator, spec: RouteSpec): Promise<{ status: number; body: string }> {
  const headers: Record<string, string> = { ...spec.headers };
  if (spec.vary?.keys) headers.authorization = `Bearer ${spec.vary.keys[0]}`;
  const res = await fetch(emu.url + spec.path, { method: spec.method, headers, body: spec.body?.replace("{n}", "0") });
  const body = await res.text();
  if (res.status !== spec.status)
    throw new Error(`${spec.label}: expected ${spec.status}, got ${res.status} ${body.slice(0, 300)}`);
  return { status: res.status, body };
}

/** The ceiling's address for a row: rows that share a path (list, 401, 429) are told apart by the query. */
const ceilingPath = (spec: RouteSpec) => `${spec.path}?row=${spec.id}`;

function load(
  server: Server,
  spec: RouteSpec,
  connections: number,
  durationS: number,
  measured: boolean,
  ceiling = false,
): Promise<LoadResult> {
  return runLoad({
    url: server.url + (ceiling ? ceilingPath(spec) : spec.path),
    connections,
    durationS,
    method: spec.method,
    body: spec.body,
    headers: spec.headers,
    vary: spec.vary,
    serverPid: measured ? server.pid : undefined,
  });
}

/** Every response of the run must be the row's status: a 2xx row with a 4xx in it (or the reverse) is not that route's figure. */
function checkStatuses(spec: RouteSpec, who: string, r: LoadResult): void {
  const wrong = spec.status >= 400 ? r.requests - r.non2xx : r.non2xx;
  if (wrong > 0 || r.errors > 0)
    throw new Error(`${spec.label} on ${who}: ${wrong} responses other than ${spec.status}, ${r.errors} socket errors`);
}

async function measureRoute(
  ctx: SectionContext,
  spec: RouteSpec,
  emu: Emulator,
  ceiling: Server,
  writeCeiling: Server,
): Promise<RouteRow> {
  const { settings, log } = ctx;
  await load(emu, spec, 64, settings.warmupS, false);
  const ext = await load(emu, spec, 64, settings.routeDurationS, true);
  checkStatuses(spec, "ext", ext);
  await load(ceiling, spec, 64, settings.warmupS, false, true);
  const top = await load(ceiling, spec, 64, settings.routeDurationS, true, true);
  checkStatuses(spec, "the ceiling", top);
  const row: RouteRow = {
    id: spec.id,
    label: spec.label,
    status: spec.status,
    ext,
    ceiling: top,
    ratio: ext.rps / top.rps,
    cpuRatio: ext.serverCpuUsPerReq && top.serverCpuUsPerReq ? top.serverCpuUsPerReq / ext.serverCpuUsPerReq : null,
  };
  if (spec.write) {
    await load(writeCeiling, spec, 64, settings.warmupS, false);
    row.writeCeiling = await load(writeCeiling, spec, 64, settings.routeDurationS, true);
    checkStatuses(spec, "the write ceiling", row.writeCeiling);
    row.writeRatio = ext.rps / row.writeCeiling.rps;
    log(
      `  ${spec.label}: write ceiling ${Math.round(row.writeCeiling.rps)} req/s: ext at ${pct(row.writeRatio)} of it`,
    );
  }
  log(
    `  ${spec.label}: ext ${Math.round(ext.rps)} req/s (${Math.round(ext.serverCpuUsPerReq ?? 0)} µs CPU), ceiling ${Math.round(top.rps)} req/s (${Math.round(top.serverCpuUsPerReq ?? 0)} µs): ${pct(row.ratio)}`,
  );
  return row;
}

export const routes: BenchSection<RoutesResult> = {
  id: "routes",
  label: "every hot route vs the bare ceiling (wrk, 64 connections)",
  async run(ctx) {
    const { settings, openapiFile, log } = ctx;
    const specs = routeSpecs();
    const main = await startEmulator({
      seed: benchFixture(settings.extensionsInAccount, CREATE_ACCOUNTS),
      rateLimits: false,
    });
    let limited: Emulator | null = null;
    let ceiling: Server | null = null;
    let writeCeiling: Server | null = null;
    try {
      writeCeiling = await startWriteCeiling();
      limited = await startEmulator({ seed: benchFixture(settings.extensionsInAccount), rateLimits: true });
      // The limited server's clock stands still (rate windows follow the emulator's clock), so the demo key's GET
      // window, spent here, stays spent for the whole row: every request of it is a 429.
      const frozen = await fetch(`${limited.url}/_emulator/clock`, {
        method: "POST",
        headers: { ...ADMIN_HEADERS, ...JSON_TYPE },
        body: '{"mode":"frozen"}',
      });
      if (frozen.status !== 200) throw new Error(`freezing the clock answered ${frozen.status} ${await frozen.text()}`);
      await frozen.arrayBuffer();
      for (let i = 0; i < 130; i++)
        await (await fetch(limited.url + LIST_PATH, { headers: AUTH_HEADERS })).arrayBuffer();
      const captured: Record<string, { status: number; body: string }> = {};
      for (const spec of specs)
        captured[`${spec.method} ${ceilingPath(spec)}`] = await capture(spec.server === "main" ? main : limited, spec);
      ceiling = await startCeiling(captured);
      const listSpec = specs[0]!;
      const rows: RouteRow[] = [];
      for (const spec of specs)
        rows.push(await measureRoute(ctx, spec, spec.server === "main" ? main : limited, ceiling, writeCeiling));
      const extOne = await load(main, listSpec, 1, settings.loadDurationS, true);
      const topOne = await load(ceiling, listSpec, 1, settings.loadDurationS, true, true);
      log(`  list at 1 connection: ext p50 ${extOne.latencyP50Ms} ms, ceiling p50 ${topOne.latencyP50Ms} ms`);
      let prism: LoadResult | null = null;
      if (settings.prismLoad) {
        const p = await startPrism(openapiFile);
        try {
          await runLoad({
            url: p.url + LIST_PATH,
            connections: 64,
            durationS: settings.warmupS,
            headers: AUTH_HEADERS,
          });
          prism = await runLoad({
            url: p.url + LIST_PATH,
            connections: 64,
            durationS: settings.routeDurationS,
            headers: AUTH_HEADERS,
            serverPid: p.pid,
          });
          log(`  Prism list: ${Math.round(prism.rps)} req/s`);
        } finally {
          await stopServer(p);
        }
      }
      return {
        connections: 64,
        durationS: settings.routeDurationS,
        rows,
        listAtOne: { ext: extOne, ceiling: topOne },
        prism,
        listBodyBytes: Buffer.byteLength(captured[`GET ${ceilingPath(listSpec)}`]!.body),
      };
    } finally {
      if (ceiling) await stopServer(ceiling);
      if (writeCeiling) await stopServer(writeCeiling);
      if (limited) await stopEmulator(limited);
      await stopEmulator(main);
    }
  },
  render(t, r) {
    const us = (x: LoadResult) => (x.serverCpuUsPerReq === null ? "—" : Math.round(x.serverCpuUsPerReq));
    const out = [
      `## Hot routes beside the bare ceiling (wrk, 1 thread, ${t.connections} connections, ${t.durationS} s each after ${r.settings.warmupS} s of warm-up; ${r.settings.extensionsInAccount} extensions in the account, list body ${t.listBodyBytes} bytes)`,
      "",
    ];
    out.push(
      table(
        [
          "route",
          "status",
          "ext req/s",
          "ceiling req/s",
          "ext ÷ ceiling",
          "ext p50 / p99 ms",
          "ceiling p50 / p99 ms",
          "ext CPU µs/req",
          "ceiling CPU µs/req",
          "by CPU",
        ],
        t.rows.map((row) => [
          row.label,
          row.status,
          Math.round(row.ext.rps),
          Math.round(row.ceiling.rps),
          `**${pct(row.ratio)}**`,
          `${row.ext.latencyP50Ms} / ${row.ext.latencyP99Ms}`,
          `${row.ceiling.latencyP50Ms} / ${row.ceiling.latencyP99Ms}`,
          us(row.ext),
          us(row.ceiling),
          row.cpuRatio === null ? "—" : pct(row.cpuRatio),
        ]),
      ),
      "",
    );
    const writes = t.rows.filter((row) => row.writeCeiling && row.writeRatio !== undefined);
    if (writes.length > 0)
      out.push(
        "Writes beside a fair ceiling: a bare Bun.serve + bun:sqlite program (bench/write-ceiling.ts) doing the same write — same journal mode and synchronous setting, a prepared statement in a transaction, the row read back (the secret encrypted with AES-256-GCM) — with no framework, auth, validation or request log.",
        "",
        table(
          [
            "route",
            "ext req/s",
            "write ceiling req/s",
            "ext ÷ write ceiling",
            "ext CPU µs/req",
            "write ceiling CPU µs/req",
          ],
          writes.map((row) => [
            row.label,
            Math.round(row.ext.rps),
            Math.round(row.writeCeiling!.rps),
            `**${pct(row.writeRatio!)}**`,
            us(row.ext),
            us(row.writeCeiling!),
          ]),
        ),
        "",
      );
    const one = t.listAtOne;
    out.push(
      `One connection, GET /extensions: ext ${Math.round(one.ext.rps)} req/s, p50 ${one.ext.latencyP50Ms} ms, p99 ${one.ext.latencyP99Ms} ms, ${us(one.ext)} µs CPU per request; ` +
        `ceiling ${Math.round(one.ceiling.rps)} req/s, p50 ${one.ceiling.latencyP50Ms} ms, p99 ${one.ceiling.latencyP99Ms} ms, ${us(one.ceiling)} µs.` +
        (t.prism
          ? ` Prism mocking our document, 64 connections: ${Math.round(t.prism.rps)} req/s, p50 ${t.prism.latencyP50Ms} ms, ${us(t.prism)} µs CPU per request (a peer for scale, not a target).`
          : ""),
      "",
      '"by CPU" is the ceiling\'s server CPU per request ÷ ours: the same comparison with the load generator taken out (wrk shares the 2 cores). ' +
        "Create spreads its writes over " +
        CREATE_ACCOUNTS +
        " accounts with distinct names; PATCH and PUT change their value on every request (a real write, a real AES-GCM encryption).",
      "",
    );
    return out;
  },
  targets(t) {
    const list = t?.rows.find((x) => x.id === "list");
    const reads = t?.rows.filter((x) => x.writeRatio === undefined);
    const worst = reads ? [...reads].sort((a, b) => a.ratio - b.ratio)[0] : undefined;
    const writes = t?.rows.filter((x) => x.writeRatio !== undefined);
    const worstWrite = writes ? [...writes].sort((a, b) => a.writeRatio! - b.writeRatio!)[0] : undefined;
    const checks: TargetCheck[] = [
      {
        id: "get_ratio",
        target: "authenticated GET /extensions ≥ 60% of the bare ceiling's req/s at c=64 (wrk)",
        measured: list
          ? `${pct(list.ratio)} (${Math.round(list.ext.rps)} vs ${Math.round(list.ceiling.rps)} req/s; by CPU per request ${list.cpuRatio === null ? "—" : pct(list.cpuRatio)})`
          : "not run",
        met: list ? list.ratio >= 0.6 : null,
      },
      {
        id: "get_floor",
        target:
          "authenticated GET /extensions ≥ 70% of the bare ceiling's req/s at c=64 (wrk): the floor a simplification must keep",
        measured: list ? pct(list.ratio) : "not run",
        met: list ? list.ratio >= 0.7 : null,
      },
      {
        id: "route_floor",
        target: "no read route below 30% of the bare ceiling",
        measured: worst ? `lowest: ${worst.label} at ${pct(worst.ratio)}` : "not run",
        met: reads ? reads.every((x) => x.ratio >= 0.3) : null,
      },
      {
        id: "write_ratio",
        target: "each write route (POST, PATCH, PUT secret) ≥ 50% of the fair write ceiling",
        measured: worstWrite
          ? writes!.map((x) => `${x.label.split(" ")[0]} ${pct(x.writeRatio!)}`).join(", ")
          : "not run",
        met: writes && writes.length > 0 ? writes.every((x) => x.writeRatio! >= 0.5) : null,
      },
    ];
    return checks;
  },
};
