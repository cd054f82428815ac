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
  "Where the list's time goes (bun --cpu-prof-md of the server under wrk at 64 connections, while writing this bench): before this issue's changes, native SQLite " +
  "statement steps were 38% of samples (the key's lookup, `total_changes()` and `PRAGMA data_version`: on a WAL file each statement outside a transaction opens a " +
  "read transaction, ~4–6 µs of shared-memory locking), SHA-256 of the key ~10%, and an async fault hook made every request's handler async. Now a key that " +
  "authenticated is remembered until the database generation moves (no hash, no lookup); `data_version` is read only when the WAL-index header " +
  "(48 bytes of the -shm file, one plain read, no lock) shows a commit since the last look (src/db/generation.ts: that read transaction was 31% of " +
  "the list's samples in a profile taken after the other changes); fault injection is a wrap that adds nothing when no rule is armed. What is left " +
  "that is ours is a few µs: the request log's entry, three path checks (pathOf/isDeveloperApiPath: ~5% of samples, computed once per hook), the " +
  "principal's map lookup. The rest is Elysia's per-request pipeline — the composed handler and its context object, the onRequest hooks, the auth " +
  "macro's transform + resolve, merging `set.headers` into the Response (Response construction ~14% of samples) — and Bun's socket work, which the " +
  "ceiling pays too. By server CPU per request the list costs about twice the ceiling (~25 µs against ~13 µs in this day's runs); a quieter " +
  "moment of the same day measured 60–61% by req/s (47,810 vs 78,101 req/s in a --quick run at load 2.6; 24,264 vs 40,414 in a full run), a " +
  "busier one 37%: on this shared machine the req/s ratio follows the load more than the code. Closing the last gap would mean answering the list " +
  "outside Elysia's pipeline (a Bun route of our own), bypassing the hooks every other route shares; not done.";

function getRatio(r: BenchResults): string {
  const row = routeRows(r).find((x) => x.id === "list");
  return (row ? cpuLine(row) : "") + GET_PROFILE;
}

/** Measured with bun:sqlite on this machine while writing the bench: one-row UPDATE commits on a WAL file, synchronous=NORMAL. */
const WRITE_COST =
  "Each write ends in a COMMIT (in the PATCH profile, bun:sqlite's argument-less statement runs — BEGIN/COMMIT — are the largest single part): " +
  "the WAL append itself costs ~20 µs of CPU, but every ~1,000 WAL pages SQLite's automatic checkpoint fsyncs the WAL and the database on the main " +
  "thread, and on this disk that averaged out to ~118 µs of wall time per one-row commit against ~43 µs with a checkpoint interval ten times " +
  "larger. Not changed: a larger interval (or checkpoints from a worker) trades the WAL file's size and when data reaches the disk for a write " +
  "throughput that a test suite's sparse writes never need. ";

const ROUTE_NOTES: Record<string, string> = {
  get:
    "GET /extensions/:id reads the row and its install count in one statement now (two read transactions before; 51–56 → 37–59 µs in the same A/B: within the noise); Elysia then validates the response " +
    "against the Extension schema and serializes it (the list skips both: its body is cached already serialized).",
  create:
    "POST /extensions: a write transaction (WAL append of the table page and three index pages; with synchronous=NORMAL every ~1,000 pages a checkpoint " +
    "fsyncs), the JSON body parsed and validated by Elysia/TypeBox, the 201 validated and serialized. Its statements are prepared once now (drizzle's builder " +
    "built and prepared each query per request: 540–677 → 224–231 µs of server CPU per request in an A/B of the two builds alternated on the loaded machine). What is left is SQLite's write path and the framework.",
  patch:
    "PATCH: one prepared UPDATE, one prepared listed-at check and no read-back (346–365 → 138–160 µs, same A/B); left: the write transaction, body parse + validation, " +
    "response validation.",
  secret:
    "PUT secrets: AES-256-GCM with a fresh IV (randomBytes + cipher, ~10 µs), one prepared UPDATE or INSERT (347–366 → 130–146 µs, same A/B); left: the write transaction and the framework.",
  installs:
    "GET …/installs used to count install rows with four drizzle builder queries built and prepared per request (322 µs of server CPU); the statistics are " +
    "counters now, read with two statements prepared once (src/installs/service.ts: 140 → 8 µs in process); left: the owner check, the response validated " +
    "against its schema (a record of version ids) and Elysia's pipeline, as for GET /extensions/:id.",
  limits:
    "GET …/limits resolved every limit with two statements each (40 read transactions) and built six builder queries per request (684–928 µs, same A/B); now two statements " +
    "for the overrides and one for the usage, inside one read transaction (85–93 µs); left: a 3 KB body validated against its schema by Elysia and serialized.",
  unauthorized:
    "The 401 pays SHA-256 of the unknown key and its SQLite lookup (never remembered: failures are not cached, so invented keys cannot grow memory), the check " +
    "against the admin token (its digest is now made once, not per request) and the error envelope.",
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
    (trace.length > 0 ? `This run's start-up trace: ${trace.map((l) => l.replace(/^\[startup\]\s*/, "")).join("; ")}. ` : "") +
    "Read the CPU column: on a busy machine the wall times include waiting for a core. By CPU, the start is spread over framework and runtime work, no single " +
    "part of it ours: the CLI's and the server's modules evaluated (Elysia, TypeBox, drizzle, citty: ~35 ms CPU together under load, from bytecode), the app " +
    "built (~20 ms: Elysia registers every route with its TypeBox schemas and error models — src/errors/model.ts's errorResponses builds each route's error " +
    "schemas, ~6% of a start-up profile), SQLite opened and migrated (~8 ms CPU plus 7 fsyncs, ~5 ms on this disk: the secrets key file and SQLite's WAL " +
    "set-up, kept for durability), and the first response (~20 ms CPU: Elysia compiles the /healthz handler with `new Function` on first use). The binary " +
    "is already built with `--bytecode`, the OpenAPI generator and the docs script load on first use. What would close it: schemas and handlers composed " +
    "at build time instead of at every start (not available in Elysia 1.4), fewer error-model schemas per route (src/errors/model.ts, being reworked for " +
    "the OpenAPI document in a parallel issue), an idle machine."
  );
}

function uploadSpeed(r: BenchResults): string {
  const l = (r.sections.upload as { large?: { seconds: number; bundleBytes: number; runs?: unknown[] } } | undefined)?.large;
  const at = l ? `${l.seconds} s for ${round(l.bundleBytes / 1024 / 1024, 1)} MB (median of ${l.runs?.length ?? 1}). ` : "";
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
  return "Spawning the binary and waiting for its ready file is a cold start of the binary in memory mode with the demo fixture, plus Node's spawn and a poll of the file every millisecond: " + coldStart(r);
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
