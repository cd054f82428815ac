/**
 * A small leveled logger writing single lines to stderr. Never pass request bodies, keys or secret values:
 * the logger has no redaction because nothing secret is ever handed to it.
 */
export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

export function createLogger(
  level: LogLevel,
  // The console, not process.stderr: the first touch of that stream costs a start-up several milliseconds.
  write: (line: string) => void = (l) => console.error(l),
): Logger {
  const min = ORDER[level];
  const log = (lvl: LogLevel) => (msg: string, fields?: Record<string, unknown>) => {
    if (ORDER[lvl] < min) return;
    const extra = fields
      ? " " +
        Object.entries(fields)
          .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
          .join(" ")
      : "";
    write(`[ext] ${lvl} ${msg}${extra}`);
  };
  return { debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") };
}
