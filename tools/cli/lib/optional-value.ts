/**
 * citty has no "flag with an optional value" (the runner applies this to flags marked `optionalValue: true`): a string flag always takes the next word, so
 * `--auto-approve --memory` would read "--memory" as the delay. Before parsing, a bare `--flag` that is
 * last or followed by another option becomes `--flag=` (empty value, which the config reads as "at once").
 * A following word that is not an option is left as the value, so `--auto-approve 500` still works and
 * `--auto-approve soon` is refused by the config as a bad delay.
 */
function withOptionalValue(rawArgs: readonly string[], flag: string): string[] {
  const bare = `--${flag}`;
  if (!rawArgs.includes(bare)) return [...rawArgs];
  const out: string[] = [];
  for (let i = 0; i < rawArgs.length; i++) {
    const arg = rawArgs[i]!;
    if (arg === "--") {
      out.push(...rawArgs.slice(i));
      break;
    }
    const next = rawArgs[i + 1];
    out.push(arg === bare && (next === undefined || next.startsWith("-")) ? `${bare}=` : arg);
  }
  return out;
}

/** Flags a command marks `optionalValue: true` in its args definition. */
function optionalValueFlags(argsDef: Record<string, unknown>): string[] {
  return Object.entries(argsDef)
    .filter(([, def]) => (def as { optionalValue?: boolean }).optionalValue === true)
    .map(([name]) => name);
}

export function withOptionalValues(rawArgs: readonly string[], argsDef: Record<string, unknown>): string[] {
  return optionalValueFlags(argsDef).reduce<string[]>((args, flag) => withOptionalValue(args, flag), [...rawArgs]);
}
