/** Words the pages put around numbers; plain functions, so tests import them without the page's framework. */

/** "1 sound", "12 sounds": a count with its noun (plurals in -s only: the nouns the pages count take it). */
export const counted = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;
