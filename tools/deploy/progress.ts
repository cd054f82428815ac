/**
 * Upload progress on stderr: a bar redrawn in place on a terminal, plain lines at each quarter otherwise
 * (a CI log gets four lines, not thousands of carriage returns).
 */
import { formatBytes } from "../../common/text/format";

export interface Progress {
  update(sent: number, total: number): void;
  done(): void;
}

export function createProgress(
  label: string,
  tty: boolean,
  write: (s: string) => void = (s) => process.stderr.write(s),
): Progress {
  let lastQuarter = -1;
  let lastPercent = -1;
  let drawn = false;
  return {
    update(sent, total) {
      const fraction = total === 0 ? 1 : Math.min(sent / total, 1);
      if (tty) {
        const percent = Math.floor(fraction * 100);
        if (percent === lastPercent) return;
        lastPercent = percent;
        const width = 30;
        const filled = Math.round(fraction * width);
        write(
          `\r${label} [${"#".repeat(filled)}${"-".repeat(width - filled)}] ${String(percent).padStart(3)}%  ${formatBytes(sent)} / ${formatBytes(total)}`,
        );
        drawn = true;
        return;
      }
      const quarter = Math.floor(fraction * 4);
      if (quarter === lastQuarter || quarter === 0) return;
      lastQuarter = quarter;
      write(`${label}: ${quarter * 25}% (${formatBytes(sent)} of ${formatBytes(total)})\n`);
    },
    done() {
      if (tty && drawn) write("\n");
    },
  };
}
