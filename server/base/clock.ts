/**
 * The emulator's clock. Everything that reads time (timestamps, rate-limit windows, auto-approval) reads it
 * here, so the control plane can move time forward, pin it, or return to real time.
 */
export interface Clock {
  /** Milliseconds since the epoch, as the emulator sees it. */
  nowMs(): number;
  /** ISO 8601 UTC with milliseconds. */
  iso(): string;
}

/** ISO 8601 UTC with milliseconds for an instant the emulator's clock gave earlier (e.g. a logged `nowMs()`). */
export function isoOf(ms: number): string {
  return new Date(ms).toISOString();
}

/** The instants the emulator's clock may show: a timestamp must stay a four-digit-year ISO date. */
export const CLOCK_MIN_MS = 0; // 1970-01-01T00:00:00.000Z
export const CLOCK_MAX_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** Whether `ms` is an instant the clock may be moved to (finite, 1970-01-01 … 9999-12-31). */
export function isClockInstant(ms: number): boolean {
  return Number.isFinite(ms) && ms >= CLOCK_MIN_MS && ms <= CLOCK_MAX_MS;
}

/** The clock's range in words, for messages. */
export const CLOCK_RANGE_TEXT = "1970-01-01T00:00:00.000Z … 9999-12-31T23:59:59.999Z";

/** RFC 3339's date-time, the document's `format: date-time`: a date, a time and a zone (Z or ±hh:mm). */
const DATE_TIME = /^[+-]?\d{4,6}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;
const DAY = /^([+-]?\d{4,6})-(\d{2})-(\d{2})/;
const TIME = /T(\d{2}):(\d{2})(?::(\d{2}))?/;

/**
 * The one rule for a timestamp that comes in (the clock API's `set`, every timestamp of a fixture or an export):
 * a real calendar instant — `Date.parse` alone rolls 2026-02-31 over to March and reads 2026-13-45 as nothing —
 * inside the clock's range. Gives the instant, or why the text is not one (never the text beyond its date/time).
 */
export function readInstant(text: string): { ms: number; problem?: undefined } | { problem: string } {
  if (!DATE_TIME.test(text))
    return { problem: "is not an ISO 8601 date and time with a zone, e.g. 2026-11-22T10:00:00.000Z" };
  const ms = Date.parse(text);
  const day = DAY.exec(text);
  if (day) {
    const [y, m, d] = [Number(day[1]), Number(day[2]), Number(day[3])];
    const probe = new Date(0);
    probe.setUTCFullYear(y, m - 1, d);
    if (probe.getUTCFullYear() !== y || probe.getUTCMonth() !== m - 1 || probe.getUTCDate() !== d)
      return { problem: `${day[0]} is not a day of the calendar` };
  }
  const time = TIME.exec(text);
  if (time && (Number(time[1]) > 23 || Number(time[2]) > 59 || Number(time[3] ?? 0) > 59))
    return { problem: `${time[0].slice(1)} is not a time of day` };
  if (!Number.isFinite(ms))
    return { problem: "is not an ISO 8601 date and time with a zone, e.g. 2026-11-22T10:00:00.000Z" };
  if (!isClockInstant(ms)) return { problem: `is outside ${CLOCK_RANGE_TEXT}, the instants the clock can show` };
  return { ms };
}

/** readInstant for the form every stored timestamp has: it must also round-trip (`toISOString()` gives it back). */
export function readStoredInstant(text: string): { ms: number; problem?: undefined } | { problem: string } {
  const read = readInstant(text);
  if (read.problem === undefined && isoOf(read.ms) !== text)
    return { problem: "must be written as the clock writes it, e.g. 2026-11-22T10:00:00.000Z" };
  return read;
}

/** Thrown by the clock instead of moving to an instant outside the range: the clock is left as it was. */
export class ClockRangeError extends Error {}

export type ClockMode = "real" | "frozen";

export interface ClockState {
  now: string;
  mode: ClockMode;
  offsetMs: number;
}

export interface ClockSetting {
  offsetMs: number;
  frozenAt: number | null;
}

/**
 * The machine's own time, never moved by the control plane: for what must expire in real time whatever the
 * emulator's clock shows (a dashboard login code).
 */
export const machineNowMs = (): number => Date.now();

export class EmulatorClock implements Clock {
  private offsetMs = 0;
  private frozenAt: number | null = null;

  constructor(private readonly realNow: () => number = machineNowMs) {}

  nowMs(): number {
    return this.at(this.realNow());
  }

  /** The emulator's instant when the machine's time is `real`. */
  private at(real: number): number {
    // A running clock set close to the end of the range keeps running: it stops at the last instant
    // rather than produce a date no timestamp column or ISO string can hold.
    return Math.min(this.frozenAt ?? real + this.offsetMs, CLOCK_MAX_MS);
  }

  iso(): string {
    return isoOf(this.nowMs());
  }

  /** Moves time forward (or back, with a negative value); a frozen clock stays frozen at the new instant. */
  advance(seconds: number): void {
    const deltaMs = seconds * 1000;
    if (!isClockInstant(this.nowMs() + deltaMs)) throw new ClockRangeError();
    if (this.frozenAt !== null) this.frozenAt += deltaMs;
    else this.offsetMs += deltaMs;
  }

  /** Jumps to an instant; time keeps running from there unless `freeze` is set. */
  set(instantMs: number, freeze = false): void {
    if (!isClockInstant(instantMs)) throw new ClockRangeError();
    if (freeze) {
      this.frozenAt = instantMs;
    } else {
      this.frozenAt = null;
      this.offsetMs = instantMs - this.realNow();
    }
  }

  freeze(): void {
    this.frozenAt = this.nowMs();
  }

  /** Back to the machine's real time. */
  reset(): void {
    this.offsetMs = 0;
    this.frozenAt = null;
  }

  /** What `restoreSetting` needs to put the clock back as it is now (an offset keeps running, as it did). */
  setting(): ClockSetting {
    return { offsetMs: this.offsetMs, frozenAt: this.frozenAt };
  }

  restoreSetting(setting: ClockSetting): void {
    this.offsetMs = setting.offsetMs;
    this.frozenAt = setting.frozenAt;
  }

  state(): ClockState {
    // One reading of the machine's time: two could straddle a millisecond and report an offset of -1.
    const real = this.realNow();
    const now = this.at(real);
    return { now: isoOf(now), mode: this.frozenAt === null ? "real" : "frozen", offsetMs: now - real };
  }
}
