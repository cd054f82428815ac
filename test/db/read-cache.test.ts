/** The read cache (server/db/read-cache.ts) against a generation the test moves by hand. */
import { describe, expect, test } from "bun:test";
import type { DbGeneration } from "../../server/db/generation";
import { createReadCache } from "../../server/db/read-cache";

function handGeneration() {
  let n = 1;
  const generation: DbGeneration = { current: () => n };
  return { generation, move: () => n++ };
}

describe("read cache", () => {
  test("computes once per key until the generation moves", () => {
    const { generation, move } = handGeneration();
    const cache = createReadCache<number>(generation);
    let computed = 0;
    const read = () => cache.get("k", () => ++computed);
    expect([read(), read()]).toEqual([1, 1]);
    move();
    expect([read(), read()]).toEqual([2, 2]);
    expect(cache.get("other", () => 99)).toBe(99);
  });

  test("what a computation throws is not kept", () => {
    const { generation } = handGeneration();
    const cache = createReadCache<string>(generation);
    expect(() =>
      cache.get("k", () => {
        throw new Error("not found");
      }),
    ).toThrow("not found");
    expect(cache.get("k", () => "found")).toBe("found");
  });

  test("past its bound it starts over, so invented keys cannot grow it", () => {
    const { generation } = handGeneration();
    const cache = createReadCache<number>(generation, 3);
    let computed = 0;
    for (const k of ["a", "b", "c"]) cache.get(k, () => ++computed);
    expect(cache.get("a", () => ++computed)).toBe(1);
    cache.get("d", () => ++computed); // the fourth key: the three before it are dropped
    expect(cache.get("a", () => ++computed)).toBe(5);
  });
});
