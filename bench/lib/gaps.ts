/**
 * Why a missed target is missed, what is left and whose code it is in. The figures quoted come from the run's
 * results; the causes come from profiling the emulator while this bench was written (Bun's --cpu-prof-md on
 * the server under wrk, `perf stat` instruction counts, the start-up trace), recorded here so the results
 * carry them. Keyed by TargetCheck id; imports only the results' types, so no module here imports back.
 */
import type { BenchResults } from "./results";
import { round } from "./stats";

interface LoadLike {
  rps: number;
  serverCpuUsPerReq: number | null;
}
interface RouteRowLike {
  id: string;
  label: string;
  ratio: number;
  ext: LoadLike;
  ceiling: LoadLike;
}

function routeRows(r: BenchResults): RouteRowLike[] {
  return ((r.sections.routes as { rows?: RouteRowLike[] } | undefined)?.rows ?? []) as RouteRowLike[];
}

function cpuLine(row: RouteRowLike): string {
  const ours = row.ext.serverCpuUsPerReq;
  const top = row.ceiling.serverCpuUsPerReq;
  if (!ours || !top) return "";
  return `${row.label}: ${Math.round(ours)} µs of server CPU per request against the ceiling's ${Math.round(top)} µs. `;
}

const GET_PROFILE =
  "Where the list's time goes now (perf record -e cpu-clock on the compiled server under wrk at 64 connections): ~45% of the server's CPU is the kernel's " +
  "loopback TCP work and ~44% the binary's own native code (Bun's HTTP server, the Request/Headers/Response objects, JavaScriptCore's runtime and interpreter), which the ceiling pays too; " +
  "JIT-compiled JavaScript is ~5%. Removed from the path in this issue, each measured by alternating builds: the SQLite statements (the database " +
  "generation is an in-process counter that every write transaction moves, src/db/generation.ts; keys, unknown ones included, and the list are kept until it " +
  "moves, src/db/read-cache.ts), the request log's per-request header copies and masking (read only when a detail is asked for), the WeakMaps that " +
  "carried the principal, one of the two onRequest gates (src/http/gates.ts), and the list body's encoding on every request (each 200 is a clone of a " +
  "Response built once per body, src/http/responses.ts). What is left that is ours: the request log's entry — a build without the log answers ~10% " +
  "more requests, of which ~3% is the ring buffer holding 500 entries' headers for the garbage collector to trace — and the gate. The rest is Elysia's " +
  "per-request pipeline (context object, hooks, the auth macro's transform and resolve). The req/s ratio follows the machine's load: the same build " +
  "measured 55–62% in quick runs of the day.";

function getRatio(r: BenchResults): string {
  const row = routeRows(r).find((x) => x.id === "list");
  return (row ? cpuLine(row) : "") + GET_PROFILE;
}

/** From profiles of the write routes (bun --cpu-prof-md of app.handle in process, and of the server under wrk). */
const WRITE_COST =
  "A write costs two SQLite transactions on a WAL file: the key's lookup again (every commit moves the database generation, so the principal " +
  "remembered before it is read anew: ~17% of a PATCH profile) and the write itself (BEGIN, the row read, the UPDATE or INSERT, COMMIT, and for a " +
  "PATCH its answer's install count: ~50%; bun:sqlite's `run` and `values`). Each statement outside a transaction opens its own read transaction, whose locks on the " +
  "-shm file are system calls, and every ~1,000 WAL pages SQLite's automatic checkpoint fsyncs on the main thread. Removed in this issue: the request " +
  "log's clone of every small JSON body (a tee of the request stream: 84 → 65 µs of server CPU per PATCH), the error-envelope clone, a drizzle " +
  "transaction built on every call (the write routes run bun:sqlite transaction functions made once: 52 → 42 µs per PATCH in process) and the " +
  "PATCH's separate read of its install count. Not changed: a larger checkpoint interval or checkpoints from a worker (a WAL file that grows, data that reaches the disk " +
  "later) and a finer generation that spares the key lookup after writes to other tables (every service writing a key or an account would have to " +
  "say so) — for a test suite's sparse writes. ";

const ROUTE_NOTES: Record<string, string> = {
  get: "GET /extensions/:id is answered from the read cache (src/db/read-cache.ts) until the data changes; Elysia still validates and serializes the object.",
  create:
    "POST /extensions: the key's lookup, then one write transaction (the per-account count, the slug prefix range, the INSERT: WAL append of the table " +
    "page and three index pages), the JSON body parsed and validated by Elysia/TypeBox, the 201 validated and serialized.",
  patch:
    "PATCH: the key's lookup, one write transaction (the row, one prepared UPDATE, one listed-at check, the install count); body parse + validation, response validation.",
  secret:
    "PUT secrets: the key's lookup, AES-256-GCM with a fresh IV (randomBytes + cipher, ~10 µs), one prepared UPDATE or INSERT in a write transaction, and the framework.",
  installs:
    "GET …/installs is answered from the read cache until the data changes; Elysia still validates and serializes the statistics.",
  limits:
    "GET …/limits is answered from the read cache until the data changes; what is left is Elysia validating and serializing a 3 KB body on every request.",
  unauthorized:
    "The 401: an unknown key is remembered like a known one until the next commit (bounded), so a repeated one skips the SHA-256 and the lookup; left: " +
    "the admin-token check of a failed key (a SHA-256 of the header, for a constant-time compare) and the error path (the throw, Elysia's onError, the envelope).",
  rate_limited: "The 429 pays authentication (remembered), the rate window and the error envelope with its headers.",
};

const WRITES = new Set(["create", "patch", "secret"]);

function routeFloor(r: BenchResults): string {
  const low = routeRows(r).filter((x) => x.ratio < 0.3);
  const text = low.map((x) => cpuLine(x) + (ROUTE_NOTES[x.id] ?? "")).join(" ");
  return (low.some((x) => WRITES.has(x.id)) ? WRITE_COST : "") + (text || "No route below 30% in this run's results.");
}

function coldStart(r: BenchResults): string {
  const trace = (r.sections.cold as { trace?: string[] } | undefined)?.trace ?? [];
  return (
    (trace.length > 0
      ? `This run's start-up trace: ${trace.map((l) => l.replace(/^\[startup\]\s*/, "")).join("; ")}. `
      : "") +
    "Read the CPU column: on a busy machine the wall times include waiting for a core. Taken out of the start in this issue (binary start-up profiles " +
    "and the trace): the error schemas every route registered (they are markers now, expanded when the document is made: half of building the app), " +
    "the first request's route composition for /healthz (Bun answers it from a static route), drizzle's migrator building each DDL statement through " +
    "the query builder (src/db/migrations.ts), the upload parser and the bundle lister's modules (loaded on first use). What is left is the runtime and " +
    "the framework: Bun's own start (a compiled hello-world server answers in ~4 ms), evaluating the CLI's and the server's modules (Elysia, TypeBox, " +
    "drizzle, from bytecode), Elysia registering ~100 routes and mapping them at listen, SQLite creating the schema, and the services preparing their statements."
  );
}

function uploadSpeed(r: BenchResults): string {
  const l = (r.sections.upload as { large?: { seconds: number; bundleBytes: number; runs?: unknown[] } } | undefined)
    ?.large;
  const at = l
    ? `${l.seconds} s for ${round(l.bundleBytes / 1024 / 1024, 1)} MB (median of ${l.runs?.length ?? 1}). `
    : "";
  return (
    at +
    "The server reads the bundle once: the multipart body is parsed as it arrives (busboy), and the bundle part goes at the same time to the temp file " +
    "(SHA-256, disk write, flushed every 8 MB so the final fsync finds little left) and through gunzip → the strict tar reader for the inspection " +
    "(src/bundles/inspect.ts, tar-reader.ts). gunzip now emits 128 KB chunks (zlib's 16 KB default made ~3,400 trips per bundle through Bun's zlib work " +
    "queue and the tar reader: the largest part of the first profile), which took the server's CPU for the first 49.9 MB upload from ~380–400 to ~230–260" +
    " ms; the upload asks for an asynchronous collection every 2 MB so the larger chunks do not raise the peak memory. What is left, from a CPU profile " +
    "of the server receiving five 49.9 MB bundles after the change (bun --cpu-prof-md), per upload on the main thread (profile time, which also counts " +
    "the moments the busy machine took the core away; /proc puts the main thread's CPU at ~120–140 ms): SHA-256 ~55 ms (node:crypto's `update`; " +
    "Bun.CryptoHasher measured the same), Bun's request-body reader ~55 ms (Readable.fromWeb over the body zero-fills a fresh buffer for every read and " +
    "copies the socket's bytes into it: `alloc` + `pull`, Bun's code), zlib's inflate ~25 ms, the temp file's writes ~20 ms (Bun's WriteStream makes its " +
    "write() calls on the main thread; ~50 ms in a profile taken while the machine was busy), busboy's boundary search ~10 ms, the collections ~5 ms. Off" +
    " the main thread, per upload: the JIT compiler ~50–70 ms (a fresh server compiles the upload path during its first large upload), Bun's pool threads" +
    " ~40 ms (zlib, the fdatasyncs) and the client's ~70 ms, on the same 2 cores. The wall time (~0.26–0.33 s) is about twice the main thread's CPU: each" +
    " chunk is a chain of hand-offs (socket read → parser → hash and file write → gunzip on a pool thread → tar reader), so with the cores shared three " +
    "ways the main thread waits about as long as it works. Tried and measured (alternated fresh-server runs), none kept: the request body read with its " +
    "web reader instead of Readable.fromWeb (no zero-filled buffers) — Bun then queues the body without backpressure (+65–80 MB peak; the 60 MB refusal " +
    "test's memory bound fails); SHA-256 in a worker fed a copy of each chunk — 167 against 183 MB/s, +34 MB (the worker's own heap, ~6 MB, and the " +
    "copies), the main thread only ~10 ms lighter; gunzip + the tar reader in a worker — 168 against 190 MB/s and ~370 against ~240 ms of CPU (the worker" +
    " loads and JITs the inspector cold, and the copies cost the main thread what the inspection did), with no backpressure yet; larger stream buffers " +
    "(512 KB for the inspection's copy of the stream — since removed: gunzip reads the part stream itself —, gunzip's input, the temp file's stream) — no" +
    " faster, +2–13 MB. What would close it: a body reader that reuses its buffers with backpressure, and a faster SHA-256 (both inside Bun), or an idle " +
    "machine: runs of this build span ~150–195 MB/s with the machine's load."
  );
}

function uploadRss(r: BenchResults): string {
  void r;
  return (
    "What grows is short-lived garbage more than live data: every chunk of the request body arrives as a new Buffer (Bun's body reader), gunzip's output " +
    "chunks are new Buffers, and the collector returns them in batches. The upload now asks for an asynchronous collection (`Bun.gc(false)`) every 2 MB " +
    "of bundle (src/versions/upload.ts), so the peak follows the buffers the pipeline holds rather than when the collector happens to run: alternated " +
    "fresh-server runs measured +22–27 MB with 128 KB gunzip chunks (64 KB chunks without the collections: +26–45 MB). Reading the 49.9 MB body alone, " +
    "with nothing done to it, costs a plain Bun server +10–15 MB of peak RSS (Bun's body buffers): about half of what is left is there."
  );
}

function rssGrowth(r: BenchResults): string {
  const m = r.sections.memory as { afterBatches?: { rssMB: number }[] } | undefined;
  const batches = m?.afterBatches ? m.afterBatches.map((b) => `${b.rssMB} MB`).join(" → ") : "";
  return (
    `RSS after each batch: ${batches}. The state the server keeps per request is bounded by design (the request log is a fixed-size ring; rate windows are one per ` +
    "account and group; remembered keys at most 256), so growth that goes on batch after batch is a leak to find with `bun --heap-prof` over the same load."
  );
}

function resetTime(r: BenchResults): string {
  void r;
  return (
    "A reset deletes every row with one prepared statement in one transaction (ON DELETE CASCADE from accounts), empties the blob store (two directory " +
    "reads when nothing is stored), clears the in-memory state and re-applies the start-up fixture with statements prepared once per runtime " +
    "(src/fixtures/statements.ts). Profiled with bun --cpu-prof-md: in process, 20,000 resets of the demo fixture cost about 0.03–0.06 ms each, mostly " +
    "SQLite executing the writes (the cascading DELETE, the inserts) and the blob store's directory reads; the server under a loop of POST " +
    "/_emulator/reset from Node spends about two thirds of its CPU in that handler, the rest in Elysia's pipeline, the control-plane auth gate and the " +
    "request log. What a test waits for is mostly the HTTP round trip: a trivial control-plane call (GET /_emulator/clock) over the same client takes " +
    "about two thirds of a reset's time, both in process (Bun's fetch) and from Node (the helper's node:http on a kept-alive connection). A miss is " +
    "therefore the machine's load on that round trip; compare several quick runs."
  );
}

function nodeStart(r: BenchResults): string {
  return (
    "Spawning the binary and waiting for its ready file is a cold start of the binary in memory mode with the demo fixture, plus Node's spawn and a poll of the file every millisecond: " +
    coldStart(r)
  );
}

export function explainGap(id: string, r: BenchResults): string {
  switch (id) {
    case "cold_start":
      return coldStart(r);
    case "get_ratio":
      return getRatio(r);
    case "route_floor":
      return routeFloor(r);
    case "upload_speed":
      return uploadSpeed(r);
    case "upload_rss":
      return uploadRss(r);
    case "rss_growth":
      return rssGrowth(r);
    case "reset_bun":
    case "reset_node":
      return resetTime(r);
    case "node_start":
      return nodeStart(r);
    default:
      return "No explanation recorded for this target.";
  }
}
