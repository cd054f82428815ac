/**
 * How long a string is, as the OpenAPI document's `minLength`/`maxLength` count it: in characters (Unicode
 * code points), as JSON Schema defines them — not JavaScript's `.length`, which counts UTF-16 units, so an
 * emoji counts twice. The server's validator, the dashboard's form checks and every other caller count with
 * this one function.
 */
export function characterCount(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // A high surrogate followed by a low one is one character; a lone surrogate counts as one, as JSON Schema's.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}
