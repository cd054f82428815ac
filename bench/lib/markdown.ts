/** Small Markdown helpers shared by the report and the sections. */
import { round } from "./stats";

export const table = (head: string[], rows: (string | number)[][]) =>
  [`| ${head.join(" | ")} |`, `|${head.map(() => "---").join("|")}|`, ...rows.map((r) => `| ${r.join(" | ")} |`)].join(
    "\n",
  );

export const pct = (x: number) => `${round(x * 100)}%`;

export const verdict = (met: boolean | null) => (met === null ? "—" : met ? "met" : "**missed**");
