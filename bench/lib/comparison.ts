/**
 * The arithmetic of `npm run bench -- --against REF`, apart from the measuring (bench/lib/against.ts) so it can
 * be tested: the best round per side, this tree ÷ the reference, each side's ratio to its ceiling, the table,
 * the rounds' own ratios beside them, and the guard's verdict (the CI check that a change is not slower than its
 * parent).
 */
import { table } from "./markdown";
import { round } from "./stats";

export type MeasureId = "list" | "patch" | "upload" | "start";

export interface Measure {
  id: MeasureId;
  label: string;
  unit: string;
  /** Throughputs: higher is better, the best round is the highest. Start-up: the lowest. */
  higherIsBetter: boolean;
  /** What the ceiling column is: a bare Bun.serve, the fair write program, the start-up floor; null for none. */
  ceiling: string | null;
}

export const MEASURES: readonly Measure[] = [
  {
    id: "list",
    label: "GET /extensions (10 extensions, wrk 64 connections)",
    unit: "req/s",
    higherIsBetter: true,
    ceiling: "bare Bun.serve answering the same bytes",
  },
  {
    id: "patch",
    label: "PATCH /extensions/:id (wrk 64 connections)",
    unit: "req/s",
    higherIsBetter: true,
    ceiling: "bare Bun.serve + bun:sqlite doing the same write",
  },
  {
    id: "upload",
    label: "POST /extensions/:id/versions, 1 MB bundle, one client",
    unit: "submissions/s",
    higherIsBetter: true,
    ceiling: null,
  },
  {
    id: "start",
    label: "start → first authenticated API answer (quickest of the round's starts)",
    unit: "ms",
    higherIsBetter: false,
    ceiling: "the floor: a compiled Bun.serve answering /healthz",
  },
];

/** One round's figure of one measure: this tree, the reference and the ceiling (null when it has none). */
export interface RoundFigure {
  current: number;
  reference: number;
  ceiling: number | null;
}

export interface MeasureResult {
  id: MeasureId;
  rounds: RoundFigure[];
}

export interface Best {
  current: number;
  reference: number;
  ceiling: number | null;
  /** This tree ÷ the reference. */
  ratio: number;
  /** Each side ÷ the ceiling (start-up: each side's multiple of the floor); null without a ceiling. */
  currentVsCeiling: number | null;
  referenceVsCeiling: number | null;
}

export const measureOf = (id: MeasureId): Measure => MEASURES.find((m) => m.id === id)!;

/** The best round of each side (and of the ceiling), taken apart: a busy moment spoils one round, not a side. */
export function bestOf(result: MeasureResult): Best {
  const m = measureOf(result.id);
  const pick = (values: number[]) => (m.higherIsBetter ? Math.max(...values) : Math.min(...values));
  const current = pick(result.rounds.map((r) => r.current));
  const reference = pick(result.rounds.map((r) => r.reference));
  const ceilings = result.rounds.map((r) => r.ceiling).filter((c): c is number => c !== null);
  const ceiling = ceilings.length > 0 ? pick(ceilings) : null;
  return {
    current,
    reference,
    ceiling,
    ratio: current / reference,
    currentVsCeiling: ceiling === null ? null : current / ceiling,
    referenceVsCeiling: ceiling === null ? null : reference / ceiling,
  };
}

/**
 * Each round's own ratios — its sides ran back to back, and its ceiling right after — and their median over the
 * rounds. A best round per side compares two moments; on a machine whose speed drifts within a run (a VM whose
 * ceiling moves by a third from one round to the next), a side whose best round fell in a quick moment wins by
 * that alone. A round's ratio compares its two sides at one moment, so the median of those is the steadier
 * figure of the two; the table prints both.
 */
export interface Paired {
  /** The median of the rounds' this tree ÷ the reference, and the lowest and highest of them. */
  ratio: number;
  low: number;
  high: number;
  /** The median of the rounds' side ÷ ceiling; null without a ceiling. */
  currentVsCeiling: number | null;
  referenceVsCeiling: number | null;
}

/** The middle value, or the mean of the two middle ones: with an even count neither side is favoured. */
function medianOf(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function pairedOf(result: MeasureResult): Paired {
  // A ratio of nothing, or to nothing, is no figure: measuring gave no rounds, or a side measured 0.
  if (result.rounds.length === 0) throw new Error(`${result.id}: no rounds to compare`);
  const figures = result.rounds.flatMap((r) => [r.current, r.reference, ...(r.ceiling === null ? [] : [r.ceiling])]);
  const unusable = figures.find((x) => !(Number.isFinite(x) && x > 0));
  if (unusable !== undefined) throw new Error(`${result.id}: a round measured ${unusable}`);
  const ratios = result.rounds.map((r) => r.current / r.reference);
  const withCeiling = result.rounds.filter((r): r is RoundFigure & { ceiling: number } => r.ceiling !== null);
  const ofCeiling = (side: "current" | "reference") =>
    withCeiling.length === 0 ? null : medianOf(withCeiling.map((r) => r[side] / r.ceiling));
  return {
    ratio: medianOf(ratios),
    low: Math.min(...ratios),
    high: Math.max(...ratios),
    currentVsCeiling: ofCeiling("current"),
    referenceVsCeiling: ofCeiling("reference"),
  };
}

/** What the guard holds every change to, against its first parent. */
export const GUARD_LIMITS = {
  /** List and PATCH throughput: at least this much of the parent's. */
  minThroughputRatio: 0.85,
  /** Start-up time: at most this much of the parent's. */
  maxStartRatio: 1.2,
} as const;

export interface GuardFailure {
  id: MeasureId;
  ratio: number;
  limit: string;
}

/** The measures that fail the guard; none when the change may go in. Upload is reported, not judged. */
export function guardFailures(results: readonly MeasureResult[]): GuardFailure[] {
  const failures: GuardFailure[] = [];
  for (const result of results) {
    const { ratio } = bestOf(result);
    if ((result.id === "list" || result.id === "patch") && !(ratio >= GUARD_LIMITS.minThroughputRatio))
      failures.push({ id: result.id, ratio, limit: `≥ ${GUARD_LIMITS.minThroughputRatio}×` });
    if (result.id === "start" && !(ratio <= GUARD_LIMITS.maxStartRatio))
      failures.push({ id: result.id, ratio, limit: `≤ ${GUARD_LIMITS.maxStartRatio}×` });
  }
  return failures;
}

const figure = (x: number, unit: string) => (unit === "ms" ? `${round(x, 1)} ms` : `${Math.round(x)}`);
const times = (x: number | null) => (x === null ? "—" : `${round(x, 2)}×`);

/** The comparison as a Markdown table: one row per measure, best rounds, the ratios beside them. */
export function comparisonTable(results: readonly MeasureResult[], refName: string): string {
  return table(
    ["measure", "unit", "this tree", refName, `this ÷ ${refName}`, "this ÷ ceiling", `${refName} ÷ ceiling`, "ceiling"],
    results.map((result) => {
      const m = measureOf(result.id);
      const b = bestOf(result);
      return [
        m.label,
        m.unit,
        figure(b.current, m.unit),
        figure(b.reference, m.unit),
        `**${times(b.ratio)}**`,
        times(b.currentVsCeiling),
        times(b.referenceVsCeiling),
        b.ceiling === null ? "—" : `${figure(b.ceiling, m.unit)} (${m.ceiling})`,
      ];
    }),
  );
}

/** The rounds' own ratios (pairedOf): their median, their range, and each side's median share of its ceiling. */
export function pairedTable(results: readonly MeasureResult[], refName: string): string {
  return table(
    [
      "measure",
      `this ÷ ${refName}, median of the rounds`,
      "lowest – highest round",
      "this ÷ ceiling",
      `${refName} ÷ ceiling`,
    ],
    results.map((result) => {
      const p = pairedOf(result);
      return [
        measureOf(result.id).id,
        `**${times(p.ratio)}**`,
        `${times(p.low)} – ${times(p.high)}`,
        times(p.currentVsCeiling),
        times(p.referenceVsCeiling),
      ];
    }),
  );
}

/** Every round's figures, so a reader can see how much the machine moved under the best ones. */
export function roundsTable(results: readonly MeasureResult[], refName: string): string {
  const rows: (string | number)[][] = [];
  for (const result of results) {
    const m = measureOf(result.id);
    for (const [i, r] of result.rounds.entries())
      rows.push([
        i === 0 ? m.id : "",
        i + 1,
        figure(r.current, m.unit),
        figure(r.reference, m.unit),
        r.ceiling === null ? "—" : figure(r.ceiling, m.unit),
      ]);
  }
  return table(["measure", "round", "this tree", refName, "ceiling"], rows);
}
