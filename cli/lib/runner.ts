/**
 * Runs the citty command tree with the exit codes the README promises. citty's own `runMain` exits 1 on a
 * usage error and silently accepts unknown flags (its parser is not strict); here an unknown flag, a
 * missing argument or an unknown command is a usage error (exit 2), and `--help` after `--` belongs to
 * the command `ext exec` runs, not to us.
 */
import { runCommand, type ArgsDef, type CommandDef } from "citty";
import { EXIT, err } from "../output";
import { helpText } from "./help";
import { withOptionalValues } from "./optional-value";
import { versionLine } from "./version";

/** Thrown by commands for local validation problems; exits 2 with the usage hint. */
export class UsageError extends Error {
  override name = "UsageError";
}

type AnyCommand = CommandDef<any>;

const resolve = async <T>(value: T | (() => T | Promise<T>) | Promise<T>): Promise<T> =>
  typeof value === "function" ? await (value as () => T | Promise<T>)() : await value;

/** The command named on the line (or the root) and the arguments that belong to it. */
async function findCommand(
  root: AnyCommand,
  rawArgs: string[],
): Promise<{ cmd: AnyCommand; name: string; parent?: AnyCommand; args: string[]; unknown?: string }> {
  const subs = root.subCommands ? await resolve(root.subCommands) : undefined;
  const first = rawArgs[0];
  if (!subs || first === undefined || first.startsWith("-")) return { cmd: root, name: "ext", args: rawArgs };
  const sub = Object.hasOwn(subs, first) ? subs[first] : undefined;
  if (!sub) return { cmd: root, name: "ext", args: rawArgs, unknown: first };
  return { cmd: await resolve(sub as AnyCommand), name: first, parent: root, args: rawArgs.slice(1) };
}

const kebab = (s: string) => s.replace(/[A-Z]/g, (c) => "-" + c.toLowerCase());

/** Flags and positionals this command does not define, before any `--`. */
export function strayArguments(argsDef: ArgsDef, args: string[]): string[] {
  const names = new Map<string, ArgsDef[string]>();
  let positionals = 0;
  for (const [name, def] of Object.entries(argsDef)) {
    if (def.type === "positional") {
      positionals++;
      continue;
    }
    names.set(name, def);
    names.set(kebab(name), def);
    for (const a of ["alias" in def ? (def.alias ?? []) : []].flat()) names.set(a, def);
  }
  const stray: string[] = [];
  let seenPositionals = 0;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--") break;
    if (!arg.startsWith("-") || arg === "-") {
      if (++seenPositionals > positionals) stray.push(arg);
      continue;
    }
    const body = arg.replace(/^--?/, "");
    const eq = body.indexOf("=");
    const name = eq < 0 ? body : body.slice(0, eq);
    let def = names.get(name);
    if (!def && name.startsWith("no-")) {
      const negated = names.get(name.slice(3));
      if (negated?.type === "boolean") def = negated;
    }
    if (!def) {
      stray.push(arg);
      continue;
    }
    // A string flag takes the next word as its value.
    if ((def.type === "string" || def.type === "enum") && eq < 0) i++;
  }
  return stray;
}

export async function runCli(root: AnyCommand, rawArgs: string[]): Promise<void> {
  const beforeDashes = rawArgs.includes("--") ? rawArgs.slice(0, rawArgs.indexOf("--")) : rawArgs;
  const { cmd, name, parent, args, unknown } = await findCommand(root, rawArgs);
  const usageFail = async (message: string): Promise<never> => {
    err(await helpText(cmd, parent, name, Boolean(process.stderr.isTTY)));
    err("");
    err(`error: ${message}`);
    process.exit(EXIT.usage);
  };
  if (beforeDashes.includes("--help") || beforeDashes.includes("-h")) {
    process.stdout.write((await helpText(cmd, parent, name, Boolean(process.stdout.isTTY))) + "\n");
    process.exit(EXIT.ok);
  }
  if (cmd === root && (rawArgs[0] === "--version" || rawArgs[0] === "-v") && rawArgs.length === 1) {
    const meta = await resolve(root.meta);
    process.stdout.write(`${versionLine(meta?.version ?? "unknown")}\n`);
    process.exit(EXIT.ok);
  }
  if (unknown !== undefined) await usageFail(`unknown command "${unknown}"`);
  if (cmd === root) await usageFail(rawArgs.length ? `unknown option "${rawArgs[0]}"` : "no command given");
  const argsDef = await resolve(cmd.args ?? {});
  // A bare `--auto-approve` (a flag marked optionalValue) must not swallow the next option.
  const cmdArgs = withOptionalValues(args, argsDef);
  const stray = strayArguments(argsDef, cmdArgs);
  if (stray.length > 0) await usageFail(`unknown ${stray.length === 1 ? "argument" : "arguments"}: ${stray.join(" ")}`);
  try {
    await runCommand(cmd, { rawArgs: cmdArgs });
  } catch (e) {
    // citty's CLIError (a missing required argument) and ours are both usage errors.
    if (e instanceof UsageError || (e as Error)?.name === "CLIError") await usageFail((e as Error).message);
    // The API client's errors describe themselves with the server's code, message and details.
    const describe = (e as { describe?: () => string })?.describe;
    err(`error: ${typeof describe === "function" ? describe.call(e) : ((e as Error)?.message ?? String(e))}`);
    process.exit(EXIT.runtime);
  }
}
