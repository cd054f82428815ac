/** The dashboard's counted nouns: "1 sound", never "1 sounds" (sounds, warnings, characters: ui/src/wording.ts). */
import { expect, test } from "bun:test";
import { counted } from "../../ui/src/wording";

test("a count of one takes the singular, every other count the plural", () => {
  expect([0, 1, 2, 60].map((n) => counted(n, "sound"))).toEqual(["0 sounds", "1 sound", "2 sounds", "60 sounds"]);
});
