/**
 * Keys and secret values never reach a report, a terminal or a file: every recorded text passes through a
 * redactor that knows them. Longest first, so a key that contains another is replaced whole.
 */
export interface Redactor {
  add(value: string, label: string): void;
  text(s: string): string;
  headers(h: Headers): Record<string, string>;
}

/** Headers worth recording: the rest (dates, server names, tracing) only add noise to a side-by-side. */
const KEPT = /^(content-type|content-length|www-authenticate|retry-after|x-ratelimit-.*|allow|location)$/;

export function createRedactor(): Redactor {
  const known: [string, string][] = [];
  const redactor: Redactor = {
    add(value, label) {
      if (value.length < 4 || known.some(([v]) => v === value)) return;
      known.push([value, label]);
      known.sort((a, b) => b[0].length - a[0].length);
    },
    text(s) {
      let out = s;
      for (const [value, label] of known) out = out.split(value).join(label);
      return out;
    },
    headers(h) {
      const out: Record<string, string> = {};
      h.forEach((value, name) => {
        const n = name.toLowerCase();
        if (n === "authorization") out[n] = redactor.text(value);
        else if (KEPT.test(n)) out[n] = redactor.text(value);
      });
      return out;
    },
  };
  return redactor;
}
