/**
 * A word as a POSIX shell reads it back unchanged, for the commands the CLI prints or writes for the user to
 * run: plain words stay as they are; anything else is single-quoted (inside, nothing is special but `'`).
 */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}
