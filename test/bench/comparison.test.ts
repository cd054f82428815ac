/**
 * The arithmetic of `npm run bench -- --against REF` and the guard CI runs with it (bench/lib/comparison.ts):
 * a best round taken the wrong way round, or a limit judged backwards, would let a regression through.
 */
import { describe, expect, test } from "bun:test";
import {
  bestOf,
  comparisonTable,
  GUARD_LIMITS,
  guardFailures,
  type MeasureResult,
  pairedOf,
  pairedTable,
} from "../../bench/lib/comparison";

const rounds = (...figures: [number, number, number | null][]) =>
  figures.map(([current, reference, ceiling]) => ({ current, reference, ceiling }));

describe("bestOf", () => {
  test("throughput: each side's highest round, taken apart, and each side's share of its ceiling", () => {
    const best = bestOf({ id: "list", rounds: rounds([100, 400, 800], [300, 200, 1000], [200, 100, 600]) });
    expect(best).toMatchObject({ current: 300, reference: 400, ceiling: 1000, ratio: 0.75 });
    expect(best.currentVsCeiling).toBeCloseTo(0.3);
    expect(best.referenceVsCeiling).toBeCloseTo(0.4);
  });

  test("start-up: each side's lowest round, and its multiple of the floor", () => {
    const best = bestOf({ id: "start", rounds: rounds([120, 100, 10], [90, 150, 12], [95, 99, 20]) });
    expect(best).toMatchObject({ current: 90, reference: 99, ceiling: 10, currentVsCeiling: 9 });
    expect(best.ratio).toBeCloseTo(90 / 99);
  });

  test("a measure without a ceiling has no ratio to one", () => {
    expect(bestOf({ id: "upload", rounds: rounds([10, 20, null]) })).toMatchObject({
      ratio: 0.5,
      ceiling: null,
      currentVsCeiling: null,
    });
  });
});

describe("pairedOf", () => {
  test("a machine that drifts: the best rounds fall in different moments, the rounds' own ratios agree", () => {
    // This tree leads its reference by 20% in two rounds of three; the reference's best round is the third, a
    // moment where the machine favoured it (or this tree lost one): best against best says 0.8×.
    const drifting = rounds([60, 50, 100], [120, 100, 200], [90, 150, 300]);
    expect(bestOf({ id: "list", rounds: drifting }).ratio).toBeCloseTo(0.8);
    const paired = pairedOf({ id: "list", rounds: drifting });
    expect(paired.ratio).toBeCloseTo(1.2);
    expect([paired.low, paired.high]).toEqual([0.6, 1.2]);
    expect(paired.currentVsCeiling).toBeCloseTo(0.6);
    expect(paired.referenceVsCeiling).toBeCloseTo(0.5);
  });

  test("a measure without a ceiling has no share of one", () => {
    expect(pairedOf({ id: "upload", rounds: rounds([10, 20, null], [30, 20, null]) })).toMatchObject({
      currentVsCeiling: null,
      referenceVsCeiling: null,
    });
  });

  test("an even number of rounds: the mean of the two middle ratios, favouring neither side", () => {
    const paired = pairedOf({
      id: "start",
      rounds: rounds([90, 100, 10], [110, 100, 10], [80, 100, 10], [120, 100, 10]),
    });
    expect(paired.ratio).toBeCloseTo(1);
    expect(paired.currentVsCeiling).toBeCloseTo(10);
  });

  test("no rounds, or a round that measured nothing, is refused rather than printed as NaN or Infinity", () => {
    expect(() => pairedOf({ id: "list", rounds: [] })).toThrow("no rounds");
    expect(() => pairedOf({ id: "list", rounds: rounds([100, 0, 200]) })).toThrow("measured 0");
    expect(() => pairedOf({ id: "list", rounds: rounds([100, 100, 0]) })).toThrow("measured 0");
    expect(() => pairedOf({ id: "list", rounds: rounds([Number.NaN, 100, 200]) })).toThrow("measured NaN");
  });

  test("the table names the median, the range and both sides' shares", () => {
    expect(pairedTable([{ id: "start", rounds: rounds([40, 50, 5], [44, 40, 4]) }], "main")).toContain(
      "| start | **0.95×** | 0.8× – 1.1× | 9.5× | 10× |",
    );
  });
});

describe("guardFailures", () => {
  const results = (list: number, patch: number, start: number): MeasureResult[] => [
    { id: "list", rounds: rounds([list, 1000, 2000]) },
    { id: "patch", rounds: rounds([patch, 1000, 2000]) },
    // Upload is reported, never judged: a tenth of the parent's passes.
    { id: "upload", rounds: rounds([1, 10, null]) },
    { id: "start", rounds: rounds([start, 100, 10]) },
  ];

  test("passes at the limits and anything better", () => {
    expect(guardFailures(results(850, 850, 120))).toEqual([]);
    expect(guardFailures(results(2000, 1000, 50))).toEqual([]);
  });

  test("fails below 0.85× list or PATCH throughput, or above 1.2× start-up, naming each", () => {
    expect(GUARD_LIMITS).toEqual({ minThroughputRatio: 0.85, maxStartRatio: 1.2 });
    expect(guardFailures(results(849, 1000, 100)).map((f) => f.id)).toEqual(["list"]);
    expect(guardFailures(results(1000, 100, 121)).map((f) => [f.id, f.ratio])).toEqual([
      ["patch", 0.1],
      ["start", 1.21],
    ]);
  });

  test("a regression the size of a 1 ms busy-wait in a hook (list at ~1/40, PATCH at ~1/12 of the parent) fails it; noise does not", () => {
    expect(guardFailures(results(950, 950, 101)).map((f) => f.id)).toEqual([]);
    expect(guardFailures(results(1000 / 40, 1000 / 12, 100)).map((f) => f.id)).toEqual(["list", "patch"]);
  });
});

test("the table gives this tree ÷ the reference and each side's ratio to its ceiling", () => {
  const table = comparisonTable([{ id: "list", rounds: rounds([30000, 40000, 60000]) }], "main");
  expect(table).toContain(
    "| GET /extensions (10 extensions, wrk 64 connections) | req/s | 30000 | 40000 | **0.75×** | 0.5× | 0.67× |",
  );
});
