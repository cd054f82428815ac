/**
 * The page sweep is shared out over several files (./sweep.ts): a page left out of every group, or a group
 * without its file, would never be looked at, and nothing else would say so.
 */
import { expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { PAGE_NAMES, SWEEP_GROUPS } from "./sweep";

test("the sweep's groups hold every page once", () => {
  const grouped = Object.values(SWEEP_GROUPS).flat();
  expect([...grouped].sort()).toEqual([...PAGE_NAMES].sort());
  expect(new Set(grouped).size).toBe(grouped.length);
});

test("each group has its sweep file, and every sweep file is a group's", () => {
  const files = readdirSync(import.meta.dir).filter((f) => /^sweep-.*\.test\.ts$/.test(f));
  expect(files.sort()).toEqual(
    Object.keys(SWEEP_GROUPS)
      .map((g) => `sweep-${g}.slow.test.ts`)
      .sort(),
  );
});
