import { describe, expect, test } from "bun:test";
import { firstFreeSlug, SLUG_MAX, slugify } from "../../server/resources/extensions/slug";

/** The first free slug when `taken` are taken, searched from the base on. */
const uniqueSlug = (base: string, taken: ReadonlySet<string>) => firstFreeSlug(base, (s) => taken.has(s), 1).slug;

describe("slugify", () => {
  test("lowercases and folds accents", () => {
    expect(slugify("Crème Brûlée")).toBe("creme-brulee");
    expect(slugify("Ångström Über Niño")).toBe("angstrom-uber-nino");
  });

  test("letters NFKD does not decompose are folded by hand", () => {
    expect(slugify("Straße")).toBe("strasse");
    expect(slugify("Æther Œuvre")).toBe("aether-oeuvre");
    expect(slugify("Smørrebrød Łódź Þór")).toBe("smorrebrod-lodz-thor");
  });

  test("runs of other characters become one dash, trimmed at both ends", () => {
    expect(slugify("  Hello, World!!  ")).toBe("hello-world");
    expect(slugify("a -- b__c / d")).toBe("a-b-c-d");
    expect(slugify("--v2.0--")).toBe("v2-0");
  });

  test("at most 64 characters, never ending in a dash", () => {
    expect(slugify("x".repeat(100))).toBe("x".repeat(SLUG_MAX));
    const cut = slugify(`${"a".repeat(63)} tail`);
    expect(cut).toBe("a".repeat(63));
    expect(cut.length).toBeLessThanOrEqual(SLUG_MAX);
  });

  test("nothing usable → extension", () => {
    expect(slugify("")).toBe("extension");
    expect(slugify("!!! ???")).toBe("extension");
    expect(slugify("日本語")).toBe("extension");
  });
});

describe("firstFreeSlug", () => {
  test("base when free, then -2, -3, …", () => {
    expect(uniqueSlug("sound", new Set())).toBe("sound");
    expect(uniqueSlug("sound", new Set(["sound"]))).toBe("sound-2");
    expect(uniqueSlug("sound", new Set(["sound", "sound-2"]))).toBe("sound-3");
    expect(uniqueSlug("sound", new Set(["sound", "sound-2", "sound-3", "sound-5"]))).toBe("sound-4");
  });

  test("a search from a later place tries only the candidates from there on, and says where it stopped", () => {
    const tried: string[] = [];
    const taken = (slug: string) => (tried.push(slug), slug === "sound-3");
    expect(firstFreeSlug("sound", taken, 3)).toEqual({ slug: "sound-4", n: 4 });
    expect(tried).toEqual(["sound-3", "sound-4"]);
  });

  test("a 64-character base is shortened to fit the suffix", () => {
    const base = "b".repeat(SLUG_MAX);
    const second = uniqueSlug(base, new Set([base]));
    expect(second).toBe(`${"b".repeat(SLUG_MAX - 2)}-2`);
    expect(second.length).toBe(SLUG_MAX);
    const taken = new Set([base]);
    for (let n = 2; n <= 10; n++) taken.add(uniqueSlug(base, taken));
    expect(taken.has(`${"b".repeat(SLUG_MAX - 3)}-10`)).toBe(true);
    const eleventh = uniqueSlug(base, taken);
    expect(eleventh).toBe(`${"b".repeat(SLUG_MAX - 3)}-11`);
    expect(eleventh.length).toBe(SLUG_MAX);
  });

  test("shortening never leaves a double dash before the suffix", () => {
    const base = `${"a".repeat(61)}-bc`; // 64 chars; cut to 62 it ends in "-", which is dropped
    expect(uniqueSlug(base, new Set([base]))).toBe(`${"a".repeat(61)}-2`);
  });
});
