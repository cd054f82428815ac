/** "Did you mean …?" for a mistyped command or flag: the closest known name, when one is close enough. */

/** Edit distance counting a swap of two neighbours as one edit ("deplyo" → "deploy" is 1). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/** The one known name the input is a typo or an unambiguous prefix of; null when none is close (or several are). */
export function closest(input: string, known: readonly string[]): string | null {
  const typed = input.toLowerCase();
  // Short names tolerate one edit, longer ones two: "sed" is not "seed"'s typo as surely as "deplyo" is "deploy"'s.
  const allowed = typed.length <= 4 ? 1 : 2;
  let best: string | null = null;
  let bestDistance = Infinity;
  let tie = false;
  for (const name of known) {
    const distance = editDistance(typed, name.toLowerCase());
    if (distance < bestDistance) [best, bestDistance, tie] = [name, distance, false];
    else if (distance === bestDistance) tie = true;
  }
  if (best !== null && bestDistance <= allowed && !tie) return best;
  const prefixed = known.filter((name) => typed.length >= 2 && name.startsWith(typed));
  return prefixed.length === 1 ? prefixed[0]! : null;
}
