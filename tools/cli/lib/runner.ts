/**
 * Runs the citty command tree with the exit codes the README promises. citty's own `runMain` exits 1 on a
 * usage error and silently accepts unknown flags (its parser is not strict); here an unknown flag, a
 * missing argument or an unknown command is a usage error (exit 2), and `--help` after `--` belongs to
 * the command `ext exec` runs, not to us. A usage error is the error line, then one line pointing at
 * `--help`: the whole help would bury the line that matters.
 */
import { type ArgsDef, runCommand } from "citty";
import { printable, printableLines } from "../../../common/text/printable";
import { describeError } from "../../calls/api-error";
import { UsageError } from "../../calls/usage-error";
import { EXIT, err, out } from "../output";
import { closest } from "./did-you-mean";
import { type AnyCommand, helpText } from "./help";
import { withOptionalValues } from "./optional-value";
import { versionLine } from "./version";

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

const kebab = (s: string) => s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

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

/**
 * An unknown flag as a message may show it: its name only. `--name=value` → `--name=…`; a short flag with
 * its value attached (`-vhunter2`, as getopt reads it) → `-v…`.
 */
export function flagPart(arg: string): string {
  if (arg.startsWith("--")) return printable(arg.includes("=") ? `${arg.slice(0, arg.indexOf("="))}=…` : arg);
  return printable(arg.length > 2 ? `${arg.slice(0, 2)}…` : arg);
}

/**
 * Stray arguments as a usage error shows them. An unknown flag's value is never echoed (`--value=…`): the
 * name is what the user needs to see, and the value may be a secret. In a command that declares a positional
 * `sensitive` (the value `ext secrets set` refuses as an argument), stray positionals are only counted: the
 * words of an unquoted secret would land there.
 */
export function shownStrays(argsDef: ArgsDef, stray: string[]): string {
  const sensitive = Object.values(argsDef).some(
    (def) => def.type === "positional" && (def as { sensitive?: boolean }).sensitive === true,
  );
  const isFlag = (a: string) => a.startsWith("-") && a !== "-";
  const shown = stray.filter((a) => !sensitive || isFlag(a)).map((a) => (isFlag(a) ? flagPart(a) : printable(a)));
  const hidden = stray.length - shown.length;
  if (hidden > 0) shown.push(`(${hidden} word${hidden === 1 ? "" : "s"} not shown: they may be a secret value)`);
  return shown.join(" ");
}

/** `--prot` → "did you mean `--port`?", from the flags this command defines. */
function flagHint(argsDef: ArgsDef, stray: string[]): string {
  const flags = Object.entries(argsDef).flatMap(([name, def]) =>
    def.type === "positional" ? [] : def.type === "boolean" ? [name, `no-${name}`] : [name],
  );
  for (const arg of stray) {
    if (!arg.startsWith("--")) continue;
    const match = closest(arg.slice(2).split("=")[0]!, flags);
    if (match) return `; did you mean \`--${match}\`?`;
  }
  return "";
}

export async function runCli(root: AnyCommand, rawArgs: string[]): Promise<void> {
  // `ext help` and `ext help CMD` are `ext --help` and `ext CMD --help`.
  if (rawArgs[0] === "help" && rawArgs.length <= 2) rawArgs = [...rawArgs.slice(1), "--help"];
  const beforeDashes = rawArgs.includes("--") ? rawArgs.slice(0, rawArgs.indexOf("--")) : rawArgs;
  const { cmd, name, parent, args, unknown } = await findCommand(root, rawArgs);
  const usageFail = (message: string, helpHint = true): never => {
    // A usage error may quote what the user or a server gave (an account id): escaped, as every message is.
    err(`error: ${printableLines(message)}`);
    if (helpHint)
      err(
        name === "ext"
          ? "Run `ext --help` to see the commands."
          : `Run \`ext ${name} --help\` to see its flags and examples.`,
      );
    process.exit(EXIT.usage);
  };
  if (unknown !== undefined) {
    const subs = Object.keys((await resolve(root.subCommands)) ?? {});
    const match = closest(unknown, subs);
    usageFail(`unknown command "${printable(unknown)}"${match ? `; did you mean \`${match}\`?` : ""}`);
  }
  // A bare `ext` is a request for the help, as in most CLIs.
  if (rawArgs.length === 0 || beforeDashes.includes("--help") || beforeDashes.includes("-h")) {
    const tty = Boolean(process.stdout.isTTY);
    const width = tty ? process.stdout.columns : undefined;
    process.stdout.write(`${await helpText(cmd, parent, name, tty, width)}\n`);
    process.exit(EXIT.ok);
  }
  if (cmd === root && (rawArgs[0] === "--version" || rawArgs[0] === "-v") && rawArgs.length === 1) {
    const meta = await resolve(root.meta);
    out(versionLine(meta?.version ?? "unknown"));
    process.exit(EXIT.ok);
  }
  if (cmd === root) {
    const guess = rawArgs[0]?.startsWith("--") ? closest(rawArgs[0].slice(2), ["help", "version"]) : null;
    const first = rawArgs[0]!;
    usageFail(
      `unknown option "${first.startsWith("-") ? flagPart(first) : printable(first)}"${guess ? `; did you mean \`--${guess}\`?` : ""}`,
    );
  }
  const argsDef = await resolve(cmd.args ?? {});
  // A bare `--auto-approve` (a flag marked optionalValue) must not swallow the next option.
  const cmdArgs = withOptionalValues(args, argsDef);
  const stray = strayArguments(argsDef, cmdArgs);
  if (stray.length > 0)
    usageFail(
      `unknown ${stray.length === 1 ? "argument" : "arguments"}: ${shownStrays(argsDef, stray)}${flagHint(argsDef, stray)}`,
    );
  try {
    await runCommand(cmd, { rawArgs: cmdArgs });
  } catch (e) {
    // citty's CLIError (a missing required argument) and ours are both usage errors.
    if (e instanceof UsageError || (e as Error)?.name === "CLIError")
      usageFail((e as Error).message, !(e instanceof UsageError) || e.helpHint);
    // A refusal is shown with the server's code, message and details.
    err(`error: ${describeError(e)}`);
    process.exit(EXIT.runtime);
  }
}
