/**
 * Which files of an output directory go into a bundle. Gitignore rules (matched by the `ignore` package, as
 * git would): VCS folders and OS litter are always left out; every other dotfile and dot-folder and every
 * file that looks like a secret is left out by default; `.extignore` at the bundle root adds rules, and its
 * `!pattern` lines re-include what the defaults left out. A file that looks like a secret is named in a
 * warning either way, so the developer learns where its value belongs instead (`ext secrets set`).
 */
import { lstatSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ignore, { type Ignore } from "ignore";

export const EXTIGNORE = ".extignore";
/** A rules file, not content: anything larger is a mistake (a build output written to the wrong name). */
export const EXTIGNORE_MAX_BYTES = 64 * 1024;

/** Left out even when `.extignore` re-includes them: never part of an extension. */
export const ALWAYS_EXCLUDED: readonly { pattern: string; kind: string }[] = [
  { pattern: ".git", kind: "VCS folder" },
  { pattern: ".hg", kind: "VCS folder" },
  { pattern: ".svn", kind: "VCS folder" },
  { pattern: ".DS_Store", kind: "OS file" },
  { pattern: "Thumbs.db", kind: "OS file" },
  { pattern: "._*", kind: "OS file" },
];

/** Names that usually hold credentials. */
export const SECRET_PATTERNS: readonly string[] = [".env", ".env.*", "*.pem", "*.key", "id_rsa*", ".npmrc"];

/** Left out unless a `!pattern` in `.extignore` re-includes them (the last matching rule wins, as in git). */
const DEFAULT_RULES = [
  { pattern: ".*", mark: "default (dotfile): .*" },
  ...SECRET_PATTERNS.map((p) => ({ pattern: p, mark: `default (looks like a secret): ${p}` })),
];

export class PackRulesError extends Error {
  override name = "PackRulesError";
}

export interface PackRules {
  /** Why `path` (relative, "/"-separated, a directory ending in "/") is left out, or null when it is packed. */
  exclusion(path: string): string | null;
  /** True for a file name that looks like it holds a secret. */
  looksSecret(path: string): boolean;
}

/** Reads `.extignore` (if any) at `root` and returns the rules for that tree. */
export function loadPackRules(root: string): PackRules {
  const always = ignore().add(
    ALWAYS_EXCLUDED.map((r) => ({ pattern: r.pattern, mark: `always (${r.kind}): ${r.pattern}` })),
  );
  const rules = ignore().add(DEFAULT_RULES);
  for (const line of readExtignore(root)) rules.add(line);
  const secret = ignore().add([...SECRET_PATTERNS]);
  const firstRule = (ig: Ignore, path: string) => {
    const r = ig.test(path);
    return r.ignored ? (r.rule?.mark ?? r.rule?.pattern ?? "excluded") : null;
  };
  return {
    exclusion: (path) => firstRule(always, path) ?? firstRule(rules, path),
    looksSecret: (path) => secret.ignores(path.endsWith("/") ? path.slice(0, -1) : path),
  };
}

/** `.extignore`'s lines as rules marked with their line number, so each exclusion can say which line made it. */
function readExtignore(root: string): { pattern: string; mark: string }[] {
  const path = join(root, EXTIGNORE);
  let st: ReturnType<typeof lstatSync>;
  try {
    st = lstatSync(path);
  } catch {
    return [];
  }
  if (!st.isFile()) throw new PackRulesError(`${EXTIGNORE} must be a regular file`);
  if (st.size > EXTIGNORE_MAX_BYTES)
    throw new PackRulesError(`${EXTIGNORE} is ${st.size} bytes; a rules file is at most ${EXTIGNORE_MAX_BYTES} bytes`);
  return readFileSync(path, "utf8")
    .split(/\r?\n/)
    .map((pattern, i) => ({ pattern, mark: `${EXTIGNORE} line ${i + 1}: ${pattern.trim()}` }))
    .filter((r) => r.pattern.trim() !== "" && !r.pattern.startsWith("#"));
}
