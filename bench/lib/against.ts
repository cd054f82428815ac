/**
 * `npm run bench -- --against REF [--rounds=N] [--guard]`: this tree's binary beside REF's (built by
 * bench/lib/reference.ts), alternated round by round on one machine — list and PATCH under wrk, 1 MB uploads,
 * start to the first authenticated API answer — each beside its ceiling, and printed as this tree ÷ REF with
 * the best round per side and, beside it, the median of the rounds' own ratios (bench/lib/comparison.ts).
 * Nothing is written to bench/results: a comparison is a question about two commits, not the project's figures.
 *
 * `--guard` is the CI check (.ci/run runs it against the first parent): it fails when list or PATCH throughput
 * falls below 0.85× the parent's or the start-up rises above 1.2×, after measuring the failing rows once more
 * (a neighbour's build can spoil every round of one row).
 */
import { loadavg } from "node:os";
import { type BenchBundle, benchBundle } from "./bundles";
import {
  comparisonTable,
  GUARD_LIMITS,
  guardFailures,
  type MeasureId,
  type MeasureResult,
  pairedTable,
  type RoundFigure,
  roundsTable,
} from "./comparison";
import { buildFloor, startFloor } from "./floor";
import { runLoad } from "./load";
import { DEMO_FIXTURE, EXT_BINARY } from "./paths";
import { type Server, stopServer } from "./proc";
import { buildReference } from "./reference";
import {
  AUTH_HEADERS,
  benchFixture,
  type Emulator,
  LIST_PATH,
  startCeiling,
  startEmulator,
  startWriteCeiling,
  stopEmulator,
} from "./servers";
import { summarize } from "./stats";

/**
 * Each load slice runs this long; a round holds one slice per side (and one of the ceiling) of each measure.
 * Short slices and several rounds, rather than one long run per side: on a shared machine the best of several
 * short samples finds the moments a neighbour left the cores alone.
 */
const SLICE_S = 2;
const UPLOADS_PER_ROUND = 6;
/**
 * Starts per side in a round; the round's figure is the quickest of them. Contention only ever adds to a start's
 * time, so the quickest start is the one a busy machine disturbed least (a median kept a neighbour's build in it).
 */
const STARTS_PER_ROUND = 4;
const PATCH_PATH = "/developer/v1/extensions/ext_bench_02";
const UPLOAD_PATH = "/developer/v1/extensions/ext_bench_01/versions";
const PATCH_BODY = '{"description":"Changed {n}"}';

export interface AgainstOptions {
  ref: string;
  rounds: number;
  guard: boolean;
  log: (line: string) => void;
}

type Side = "current" | "reference";

interface Context {
  binaries: Record<Side, string>;
  fixture: string;
  bundle: BenchBundle;
  listCeiling: Server;
  writeCeiling: Server;
  log: (line: string) => void;
}

/** A round's two sides in the order they run: swapped every round, so neither always goes first. */
const orderOf = (round: number): Side[] => (round % 2 === 0 ? ["current", "reference"] : ["reference", "current"]);

async function throughput(server: Server, path: string, method: string, durationS = SLICE_S): Promise<number> {
  const body = method === "PATCH" ? PATCH_BODY : undefined;
  const headers = { ...AUTH_HEADERS, ...(body ? { "content-type": "application/json" } : {}) };
  const r = await runLoad({
    url: server.url + path,
    connections: 64,
    durationS,
    method,
    body,
    headers,
    vary: body ? {} : undefined,
  });
  if (r.non2xx > 0 || r.errors > 0)
    throw new Error(`${method} ${server.url}${path}: ${r.non2xx} answers that were not 2xx, ${r.errors} socket errors`);
  return r.rps;
}

let versionCounter = 0;

async function submit(emu: Emulator, bundle: BenchBundle): Promise<void> {
  const form = new FormData();
  form.append("version", `1.0.${versionCounter++}`);
  form.append("changelog", "Benchmark submission");
  form.append("bundle", Bun.file(bundle.file, { type: "application/gzip" }), "bundle.tar.gz");
  const res = await fetch(emu.url + UPLOAD_PATH, { method: "POST", headers: AUTH_HEADERS, body: form });
  const text = await res.text();
  if (res.status !== 202) throw new Error(`${emu.url}: an upload answered ${res.status} ${text.slice(0, 300)}`);
}

async function submissionsPerSecond(emu: Emulator, bundle: BenchBundle): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < UPLOADS_PER_ROUND; i++) await submit(emu, bundle);
  return UPLOADS_PER_ROUND / ((performance.now() - t0) / 1000);
}

/** Spawn → first 200 of an authenticated GET /extensions (demo fixture, fresh data directory). */
async function startToFirstAnswer(binary: string): Promise<number> {
  const emu = await startEmulator({ binary, seed: DEMO_FIXTURE, readyPath: LIST_PATH, readyHeaders: AUTH_HEADERS });
  await stopEmulator(emu);
  return emu.startMs;
}

const quickest = (values: number[]) => summarize(values).min;

type Figures = Map<MeasureId, RoundFigure[]>;

function record(ctx: Context, figures: Figures, id: MeasureId, figure: RoundFigure): void {
  figures.get(id)!.push(figure);
  const c = figure.ceiling === null ? "" : `, ceiling ${Math.round(figure.ceiling)}`;
  ctx.log(`  ${id}: this tree ${Math.round(figure.current)}, reference ${Math.round(figure.reference)}${c}`);
}

/**
 * The throughput measures: both servers started once (fresh data directories, the same fixture) and warmed up,
 * then `rounds` rounds, each a slice of every measure per side, back to back, and one of its ceiling.
 */
async function throughputRounds(ctx: Context, rounds: number, ids: readonly MeasureId[], figures: Figures) {
  const emus: Partial<Record<Side, Emulator>> = {};
  try {
    for (const side of ["current", "reference"] as Side[]) {
      const emu = await startEmulator({ binary: ctx.binaries[side], seed: ctx.fixture, rateLimits: false });
      emus[side] = emu;
      if (ids.includes("list")) await throughput(emu, LIST_PATH, "GET", 1);
      if (ids.includes("patch")) await throughput(emu, PATCH_PATH, "PATCH", 1);
      if (ids.includes("upload")) await submit(emu, ctx.bundle);
    }
    if (ids.includes("list")) await throughput(ctx.listCeiling, LIST_PATH, "GET", 1);
    if (ids.includes("patch")) await throughput(ctx.writeCeiling, PATCH_PATH, "PATCH", 1);
    for (let n = 0; n < rounds; n++) {
      const order = orderOf(n);
      ctx.log(`round ${n + 1} of ${rounds} (${order.join(" first, then ")})`);
      const each = async (measure: (emu: Emulator) => Promise<number>) => {
        const out = { current: 0, reference: 0 };
        for (const side of order) out[side] = await measure(emus[side]!);
        return out;
      };
      if (ids.includes("list"))
        record(ctx, figures, "list", {
          ...(await each((emu) => throughput(emu, LIST_PATH, "GET"))),
          ceiling: await throughput(ctx.listCeiling, LIST_PATH, "GET"),
        });
      if (ids.includes("patch"))
        record(ctx, figures, "patch", {
          ...(await each((emu) => throughput(emu, PATCH_PATH, "PATCH"))),
          ceiling: await throughput(ctx.writeCeiling, PATCH_PATH, "PATCH"),
        });
      if (ids.includes("upload"))
        record(ctx, figures, "upload", {
          ...(await each((emu) => submissionsPerSecond(emu, ctx.bundle))),
          ceiling: null,
        });
    }
  } finally {
    for (const emu of Object.values(emus)) if (emu) await stopEmulator(emu);
  }
}

/** Start-up: per round, STARTS_PER_ROUND starts of each side and of the floor, alternated; each one's quickest. */
async function startRounds(ctx: Context, rounds: number, figures: Figures) {
  await startToFirstAnswer(ctx.binaries.current);
  await startToFirstAnswer(ctx.binaries.reference);
  for (let n = 0; n < rounds; n++) {
    const order = orderOf(n);
    const times: Record<Side, number[]> = { current: [], reference: [] };
    const floor: number[] = [];
    for (let i = 0; i < STARTS_PER_ROUND; i++) {
      for (const side of order) times[side].push(await startToFirstAnswer(ctx.binaries[side]));
      const f = await startFloor();
      floor.push(f.server.startMs);
      await f.stop();
    }
    ctx.log(`start-up round ${n + 1} of ${rounds}`);
    record(ctx, figures, "start", {
      current: quickest(times.current),
      reference: quickest(times.reference),
      ceiling: quickest(floor),
    });
  }
}

async function measureAll(ctx: Context, rounds: number, ids: readonly MeasureId[]): Promise<MeasureResult[]> {
  const figures: Figures = new Map(ids.map((id) => [id, []]));
  const loads = ids.filter((id) => id !== "start");
  if (loads.length > 0) await throughputRounds(ctx, rounds, loads, figures);
  if (ids.includes("start")) await startRounds(ctx, rounds, figures);
  return ids.map((id) => ({ id, rounds: figures.get(id)! }));
}

/** Runs the comparison, prints it; returns the exit code (1 only when the guard fails). */
export async function runAgainst(opts: AgainstOptions): Promise<number> {
  const { log } = opts;
  const reference = buildReference(opts.ref, log);
  const refName = opts.ref;
  buildFloor();
  const fixture = benchFixture(10);
  const bundle = await benchBundle(1);
  // The list ceiling answers the very bytes this tree answers.
  const probe = await startEmulator({ seed: fixture, rateLimits: false });
  let listBody: string;
  try {
    const res = await fetch(probe.url + LIST_PATH, { headers: AUTH_HEADERS });
    listBody = await res.text();
    if (res.status !== 200) throw new Error(`GET ${LIST_PATH} answered ${res.status} ${listBody.slice(0, 300)}`);
  } finally {
    await stopEmulator(probe);
  }
  const listCeiling = await startCeiling({ [`GET ${LIST_PATH}`]: { status: 200, body: listBody } });
  const writeCeiling = await startWriteCeiling();
  const ctx: Context = {
    binaries: { current: EXT_BINARY, reference: reference.binary },
    fixture,
    bundle,
    listCeiling,
    writeCeiling,
    log,
  };
  try {
    const loadAtStart = loadavg()[0]!.toFixed(2);
    let results = await measureAll(ctx, opts.rounds, ["list", "patch", "upload", "start"]);
    const print = (title: string) => {
      console.log(
        `\n${title}: this tree ÷ ${refName} (${reference.commit.slice(0, 12)}), best of ${opts.rounds} alternated rounds per side; load average ${loadAtStart} at the start, ${loadavg()[0]!.toFixed(2)} now\n`,
      );
      console.log(comparisonTable(results, refName));
      console.log(`\nEach round's own ratios (its sides back to back), median over the rounds:\n`);
      console.log(pairedTable(results, refName));
      console.log(`\n${roundsTable(results, refName)}\n`);
    };
    print("Comparison");
    if (!opts.guard) return 0;
    let failures = guardFailures(results);
    if (failures.length > 0) {
      const again = failures.map((f) => f.id);
      log(
        `guard: ${failures.map((f) => `${f.id} ${f.ratio.toFixed(2)}× (${f.limit})`).join(", ")}; measuring those again`,
      );
      const rerun = await measureAll(ctx, opts.rounds, again);
      results = results.map((r) => rerun.find((x) => x.id === r.id) ?? r);
      print("Comparison, the failing rows measured again");
      failures = guardFailures(results);
    }
    if (failures.length === 0) {
      console.log(
        `guard: passed (list and PATCH ≥ ${GUARD_LIMITS.minThroughputRatio}× ${refName}, start-up ≤ ${GUARD_LIMITS.maxStartRatio}×)`,
      );
      return 0;
    }
    console.log(
      `guard: FAILED — ${failures.map((f) => `${f.id} ${f.ratio.toFixed(2)}× ${refName} (must be ${f.limit})`).join("; ")}. ` +
        "This change makes the emulator slower than its parent: profile it (README, Development) before it goes in.",
    );
    return 1;
  } finally {
    await stopServer(listCeiling);
    await stopServer(writeCeiling);
  }
}
