/**
 * Human output of the resource commands: aligned columns for lists, aligned `label  value` lines for one item.
 * Every cell and value came from the server: shown printable (an escape sequence in a name never reaches the
 * terminal), before the widths are measured.
 */
import { printable } from "../../../common/text/printable";

/** A header row and the rows under it, each column as wide as its widest cell; the last column is not padded. */
export function tableLines(headers: string[], cells: string[][]): string[] {
  const rows = cells.map((r) => r.map(printable));
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [line(headers), ...rows.map(line)];
}

/** `label:  value` lines with the values lined up. */
export function fieldLines(fields: [string, string][]): string[] {
  const width = Math.max(...fields.map(([label]) => label.length)) + 1;
  return fields.map(([label, value]) => `${`${label}:`.padEnd(width)}  ${printable(value)}`);
}

/** A value as a cell: absent is "-". */
export const cell = (value: string | number | null | undefined): string =>
  value === null || value === undefined || value === "" ? "-" : String(value);
