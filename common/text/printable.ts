/**
 * Names from outside (file names, request paths, patterns) printed to a terminal or shown in the dashboard:
 * a newline or an escape sequence in one could forge output lines ("passes every check") or drive the
 * terminal, a bidirectional override makes "a\u202Egpj.js" read as "ajs.jpg", and a zero-width space makes two
 * names that differ look the same. Every such character is shown as an escape instead (the joiners that scripts
 * and emoji need, U+200C and U+200D, are kept). Shared by the CLI and the dashboard, so it uses no Node API.
 */

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this escapes.
const UNPRINTABLE = /[\x00-\x1f\x7f-\x9f\u200b\u200e\u200f\u2028\u2029\u202a-\u202e\u2060\u2066-\u2069\ufeff]/g;

const SHORT: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

const escaped = (c: string) => {
  const code = c.charCodeAt(0);
  return SHORT[c] ?? (code < 0x100 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16)}`);
};

/**
 * `text` with each control, bidirectional-formatting or invisible zero-width character written as `\n`, `\x1b`,
 * `\u202e`, `\u200b`. A server's answer is typed only as far as it was checked, so a member that should be a
 * string may be anything at run time: what is not a string is shown as its JSON text (escaped the same way),
 * never a TypeError.
 */
export function printable(text: string): string {
  const value: unknown = text;
  const shown = typeof value === "string" ? value : (JSON.stringify(value) ?? String(value));
  return shown.replace(UNPRINTABLE, escaped);
}

/**
 * A message of several lines the program composed around outside text (a fixture's problems with an
 * excerpt and its caret): its line breaks and tabs are kept, every other control character escaped.
 */
export function printableLines(text: string): string {
  return text.replace(UNPRINTABLE, (c) => (c === "\n" || c === "\t" ? c : escaped(c)));
}
