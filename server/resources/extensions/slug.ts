/** URL-safe slug from a name: lowercase, accents folded, other runs → "-", trimmed, at most 64 characters. */
export const SLUG_MAX = 64;
/** What slugify gives: lowercase letters, digits and single inner hyphens (an export's slug is held to it). */
export const SLUG_PATTERN = "^[a-z0-9]+(-[a-z0-9]+)*$";

// Letters NFKD does not decompose into ASCII.
const FOLD: Record<string, string> = { ß: "ss", æ: "ae", œ: "oe", ø: "o", đ: "d", ð: "d", ł: "l", þ: "th", ı: "i" };

export function slugify(name: string): string {
  const folded = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[ßæœøđðłþı]/g, (c) => FOLD[c] ?? c);
  const slug = folded.replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "");
  return trimTo(slug, SLUG_MAX) || "extension";
}

function trimTo(slug: string, max: number): string {
  return slug.slice(0, max).replace(/-+$/g, "");
}

/** The n-th candidate for a base: the base itself, then base-2, base-3, … shortened to stay within SLUG_MAX. */
function candidate(base: string, n: number): string {
  if (n === 1) return base;
  const suffix = `-${n}`;
  return trimTo(base, SLUG_MAX - suffix.length) + suffix;
}

/** The first of the candidates (base, base-2, base-3, …) from the `from`-th on that is not taken, and its place. */
export function firstFreeSlug(
  base: string,
  taken: (slug: string) => boolean,
  from: number,
): { slug: string; n: number } {
  for (let n = from; ; n++) {
    const slug = candidate(base, n);
    if (!taken(slug)) return { slug, n };
  }
}

/**
 * Where each name's search for a free slug stands in a batch of inserts that frees no slug (a fixture's load, one
 * transaction): by base slug, the place of the first candidate not known to be taken (every one before it is).
 * The thousandth extension of a name goes on where the 999th stopped instead of trying every slug of the name
 * again, which made a load quadratic in the extensions of one name.
 */
export type SlugBatch = Map<string, number>;
