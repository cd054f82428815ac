import { expect, test } from "bun:test";
import { closest, editDistance } from "../../tools/cli/lib/did-you-mean";

const COMMANDS = ["serve", "deploy", "seed", "exec"];

test("a swap of two neighbours is one edit", () => {
  expect(editDistance("deplyo", "deploy")).toBe(1);
  expect(editDistance("seed", "seed")).toBe(0);
  expect(editDistance("", "abc")).toBe(3);
});

test.each([
  ["deplyo", "deploy"],
  ["Deploy", "deploy"],
  ["sevre", "serve"],
  ["sever", null], // as close to seed as to serve: no guess
  ["sed", "seed"],
  ["exce", "exec"],
  ["dep", "deploy"],
  ["frobnicate", null],
  ["x", null],
  ["s", null], // a prefix of two commands
])("%s → %s", (typed, expected) => {
  expect(closest(typed, COMMANDS)).toBe(expected);
});
