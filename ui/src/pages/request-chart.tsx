import { useState } from "preact/hooks";
import type { RequestLogEntry } from "../api";
import { useInterval } from "../hooks";

/** The chart's window, one column per second. */
const WINDOW_SECONDS = 180;
const CLASSES = ["2xx", "4xx", "5xx"] as const;
type StatusClass = (typeof CLASSES)[number];

const classOf = (status: number): StatusClass => (status >= 500 ? "5xx" : status >= 400 ? "4xx" : "2xx");

/**
 * Requests per second over the last three minutes, stacked by status class, redrawn every second. An SVG of
 * attributes only (the page's policy refuses inline styles); its label says the totals in words.
 */
export function RequestChart({ entries }: { entries: RequestLogEntry[] }) {
  const [now, setNow] = useState(() => Date.now());
  useInterval(() => setNow(Date.now()), 1000);
  const end = Math.floor(now / 1000);
  const columns = Array.from({ length: WINDOW_SECONDS }, () => ({ "2xx": 0, "4xx": 0, "5xx": 0 }));
  const totals = { "2xx": 0, "4xx": 0, "5xx": 0 };
  for (const e of entries) {
    const age = end - Math.floor(Date.parse(e.at) / 1000);
    if (!(age >= 0 && age < WINDOW_SECONDS)) continue;
    const c = classOf(e.status);
    columns[WINDOW_SECONDS - 1 - age]![c]++;
    totals[c]++;
  }
  const busiest = Math.max(...columns.map((col) => col["2xx"] + col["4xx"] + col["5xx"]));
  // The bars' scale: an empty window still draws (nothing) against a height of one request.
  const peak = Math.max(1, busiest);
  const counts = `${totals["2xx"]} 2xx, ${totals["4xx"]} 4xx, ${totals["5xx"]} 5xx`;
  const summary =
    busiest === 0
      ? "No request in the last 3 minutes."
      : `Requests in the last 3 minutes: ${counts}; at most ${busiest} in one second.`;
  return (
    <figure class="rate-chart" data-testid="request-chart">
      <svg viewBox={`0 0 ${WINDOW_SECONDS} 40`} preserveAspectRatio="none" role="img" aria-label={summary}>
        {columns.map((col, x) => {
          let y = 40;
          return CLASSES.map((c) => {
            const h = (col[c] / peak) * 40;
            if (h === 0) return null;
            y -= h;
            return <rect key={`${x}-${c}`} class={`rate-${c}`} x={x} y={y} width={0.9} height={h} />;
          });
        })}
      </svg>
      <figcaption>
        {busiest === 0
          ? "No request in the last 3 minutes"
          : `Requests in the last 3 minutes (at most ${busiest} in one second)`}
        :{" "}
        {CLASSES.map((c) => (
          <span key={c} class={`legend legend-${c}`} data-testid={`chart-total-${c}`}>
            {c} {totals[c]}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}
