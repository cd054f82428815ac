/**
 * The problems found in one bundle, capped: past the cap the inspection stops building more (a manifest of
 * 520,000 wrong values must not become 520,000 error objects), and says so once.
 */
import type { ErrorDetail } from "../errors/api-error";

export class ProblemList {
  private readonly items: ErrorDetail[] = [];
  private dropped = false;
  constructor(readonly max: number) {}

  /** No more problems will be kept: callers stop looking for them. */
  get full(): boolean {
    return this.items.length >= this.max;
  }

  add(problem: ErrorDetail): void {
    if (this.full) this.dropped = true;
    else this.items.push(problem);
  }

  get length(): number {
    return this.items.length;
  }

  /** The problems kept, and a last one saying the rest were not listed. */
  get list(): ErrorDetail[] {
    return this.dropped ? [...this.items, { path: "(archive)", message: `more than ${this.max} problems; only the first ${this.max} are listed` }] : [...this.items];
  }
}
