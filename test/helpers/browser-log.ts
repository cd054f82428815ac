/**
 * What the stand-in browser (test/helpers/fake-browser.ts) recorded: one JSON line per page it was given, in
 * FAKE_BROWSER_LOG. Only whole lines count: the file can exist before its first line is written (the stand-in
 * opens it to append), and a read then must see no record, not half of one.
 */
import { existsSync, readFileSync } from "node:fs";

export function browserRecords<R>(log: string): R[] {
  if (!existsSync(log)) return [];
  const text = readFileSync(log, "utf8");
  return text
    .slice(0, text.lastIndexOf("\n") + 1)
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as R);
}
