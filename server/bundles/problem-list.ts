/**
 * The problems found in one bundle, capped: past the cap the inspection stops building more (a manifest of
 * 520,000 wrong values must not become 520,000 error objects), and says so once, in a closing line.
 */
import type { ErrorDetail } from "../errors/api-error";

export class ProblemList {
  private readonly items: ErrorDetail[] = [];
  private closing: string | null = null;
  constructor(readonly max: number) {}

  /** No more problems will be kept: callers stop looking for them. */
  get full(): boolean {
    return this.items.length >= this.max;
  }

  push(problem: ErrorDetail): void {
    if (!this.full) this.items.push(problem);
    else this.closing ??= `more than ${this.max} problems; only the first ${this.max} are listed`;
  }

  /** A problem was dropped for want of room: callers stop looking for more. */
  get overflowed(): boolean {
    return this.closing !== null;
  }

  /** The walk stopped at the cap: whatever follows in the archive was not inspected. */
  stopped(): void {
    this.closing = `${this.max} problems found; inspection stopped there`;
  }

  /** The problems kept, and the closing line when the cap was reached. */
  get list(): ErrorDetail[] {
    return this.closing ? [...this.items, { path: "(archive)", message: this.closing }] : [...this.items];
  }
}
