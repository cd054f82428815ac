/**
 * The shapes every part of the bench shares: what a run records (BenchResults), a target's verdict
 * (TargetCheck) and a section (one measurement: how it runs, how it is written up, which targets it
 * judges and why a missed one is missed). No logic lives here, so every other bench module may import it
 * without a cycle.
 */
import type { Settings } from "./settings";
import type { Environment } from "./tools";

export interface TargetCheck {
  /** Stable id: the gap explanations and the JSON are keyed by it. */
  id: string;
  target: string;
  measured: string;
  met: boolean | null;
  /** Why it is missed and what would close it (profile-backed); shown beside a missed target. */
  explanation?: string;
}

export interface BenchResults {
  environment: Environment;
  settings: Settings;
  /** Each section's own result, under its id; a section that failed records `{ error }`. */
  sections: Record<string, unknown>;
  totalSeconds?: number;
  loadAvgAtEnd?: number[];
  targets?: TargetCheck[];
}

export interface SectionContext {
  settings: Settings;
  /** The emulator's own OpenAPI document (for Prism), fetched at the start of the run. */
  openapiFile: string;
  log: (line: string) => void;
}

export interface BenchSection<R = any> {
  /** Short id, used by `--only=` and as the key in latest.json. */
  id: string;
  /** What `--only` lists and the progress log prints. */
  label: string;
  run(ctx: SectionContext): Promise<R>;
  /** Markdown lines for latest.md (a heading, tables, notes). */
  render(result: R, r: BenchResults): string[];
  /** The targets this section's result decides (may be none). */
  targets?(result: R | undefined, r: BenchResults): TargetCheck[];
}

export function sectionError(result: unknown): string | null {
  return result && typeof result === "object" && "error" in result
    ? String((result as { error: unknown }).error)
    : null;
}
