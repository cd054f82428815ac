/**
 * The resource commands take an action word (`ext extensions create`, `ext versions approve ID`) and one
 * flag set: which action is meant, and which flags belong to it, are checked here so every command refuses
 * the same way (exit 2, with a guess for a typo).
 */

import { UsageError } from "../../calls/usage-error";
import { closest } from "./did-you-mean";

export function pickAction<T extends string>(command: string, given: string, actions: readonly T[]): T {
  if ((actions as readonly string[]).includes(given)) return given as T;
  const guess = closest(given, actions);
  throw new UsageError(
    `unknown action "${given}" of \`ext ${command}\`: use ${actions.join(", ")}${guess ? `; did you mean \`${guess}\`?` : ""}`,
  );
}

/** Refuses a flag given to an action it does not belong to: `ext versions approve ID --reason …` is a mistake. */
export function onlyWith<T extends string>(
  command: string,
  action: T,
  args: Record<string, unknown>,
  flags: Record<string, readonly T[]>,
): void {
  for (const [flag, actions] of Object.entries(flags)) {
    if (args[flag] !== undefined && !actions.includes(action))
      throw new UsageError(`--${flag} does not go with \`ext ${command} ${action}\` (only with ${actions.join(", ")})`);
  }
}

/** The positional id an action needs, or none for an action that takes none. */
export function idFor(command: string, action: string, id: string | undefined, what: string, needed: boolean): string {
  if (needed && !id) throw new UsageError(`\`ext ${command} ${action}\` needs the ${what}`);
  if (!needed && id !== undefined) throw new UsageError(`\`ext ${command} ${action}\` takes no ${what}`);
  return id ?? "";
}

/** A whole number in a range, from a flag. */
export function wholeNumber(flag: string, value: string, min: number, max: number): number {
  const n = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max)
    throw new UsageError(`--${flag} must be a whole number from ${min} to ${max} (got "${value}")`);
  return n;
}
