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

/** The first of base, base-2, base-3, … not in `taken`, kept within SLUG_MAX. */
export function uniqueSlug(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) {
    const suffix = `-${n}`;
    const candidate = trimTo(base, SLUG_MAX - suffix.length) + suffix;
    if (!taken.has(candidate)) return candidate;
  }
}
