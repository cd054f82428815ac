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

export type ClockMode = "real" | "frozen";

export interface ClockState {
  now: string;
  mode: ClockMode;
  offsetMs: number;
}

export class EmulatorClock implements Clock {
  private offsetMs = 0;
  private frozenAt: number | null = null;

  constructor(private readonly realNow: () => number = () => Date.now()) {}

  nowMs(): number {
    return this.frozenAt ?? this.realNow() + this.offsetMs;
  }

  iso(): string {
    return isoOf(this.nowMs());
  }

  /** Moves time forward (or back, with a negative value); a frozen clock stays frozen at the new instant. */
  advance(seconds: number): void {
    if (this.frozenAt !== null) this.frozenAt += seconds * 1000;
    else this.offsetMs += seconds * 1000;
  }

  /** Jumps to an instant; time keeps running from there unless `freeze` is set. */
  set(instantMs: number, freeze = false): void {
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

  state(): ClockState {
    const now = this.nowMs();
    return { now: isoOf(now), mode: this.frozenAt === null ? "real" : "frozen", offsetMs: now - this.realNow() };
  }
}
