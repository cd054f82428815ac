/**
 * Which files of an output directory go into a bundle. Gitignore rules (matched by the `ignore` package, as
 * git would): VCS folders and OS litter are always left out; every other dotfile and dot-folder and every
 * file that looks like a secret is left out by default; `.extignore` at the bundle root adds rules, and its
 * `!pattern` lines re-include what the defaults left out. A file that looks like a secret is named in a
 * warning either way, so the developer learns where its value belongs instead (`ext secrets set`).
 */
import { lstatSync } from "node:fs";
import { join } from "node:path";
import ignore, { type Ignore } from "ignore";
import { ReadRefusal, readRegularFile } from "../../common/files/safe-read";

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
export const SECRET_PATTERNS: readonly string[] = [
  // Environment files (the last matching pattern names the rule: the most specific comes last)
  "*.env",
  ".env",
  ".env.*",
  // Private keys (PEM, SSH, PuTTY) and key stores (PKCS#12, Java)
  "*.pem",
  "*.key",
  "id_rsa*",
  "id_dsa*",
  "id_ecdsa*",
  "id_ed25519*",
  "*.ppk",
  "*.p12",
  "*.pfx",
  "*.jks",
  "*.keystore",
  // Package-registry and cloud credentials
  ".npmrc",
  ".pypirc",
  ".netrc",
  "credentials",
  "credentials.json",
  "client_secret*.json",
  "service-account*.json",
];

/**
 * A name as a secret pattern should see it: without trailing spaces and dots, which some systems drop when
 * the file is opened ("x.pem " is x.pem). Null when nothing is left.
 */
function trimmedName(path: string): string | null {
  const dir = path.endsWith("/") ? "/" : "";
  const trimmed = path.slice(0, path.length - dir.length).replace(/[ .]+$/, "");
  return trimmed === "" || trimmed.endsWith("/") ? null : trimmed + dir;
}

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
  // A name with trailing spaces or dots is also judged as the name it stands for, unless a rule let it in.
  const alsoTrimmed = (ig: Ignore, path: string) => {
    const trimmed = trimmedName(path);
    return trimmed !== null && trimmed !== path && !ig.test(path).unignored ? firstRule(ig, trimmed) : null;
  };
  const looksSecret = (path: string) => {
    const file = path.endsWith("/") ? path.slice(0, -1) : path;
    const trimmed = trimmedName(file);
    return secret.ignores(file) || (trimmed !== null && secret.ignores(trimmed));
  };
  return {
    exclusion: (path) => firstRule(always, path) ?? firstRule(rules, path) ?? alsoTrimmed(rules, path),
    looksSecret,
  };
}

/** `.extignore`'s lines as rules marked with their line number, so each exclusion can say which line made it. */
function readExtignore(root: string): { pattern: string; mark: string }[] {
  const path = join(root, EXTIGNORE);
  let text: string;
  try {
    // Checked and read through one descriptor: no link followed, a regular file, within the cap.
    text = readRegularFile(path, EXTIGNORE_MAX_BYTES).toString("utf8");
  } catch (e) {
    if (!(e instanceof ReadRefusal) || e.code === "ENOENT") return [];
    if (e.reason === "too-large")
      throw new PackRulesError(
        `${EXTIGNORE} is ${lstatSync(path).size} bytes; a rules file is at most ${EXTIGNORE_MAX_BYTES} bytes`,
      );
    if (e.reason === "not-a-file") throw new PackRulesError(`${EXTIGNORE} must be a regular file`);
    throw new PackRulesError(`${EXTIGNORE} cannot be read: ${e.message}`);
  }
  return text
    .split(/\r?\n/)
    .map((pattern, i) => ({ pattern, mark: `${EXTIGNORE} line ${i + 1}: ${pattern.trim()}` }))
    .filter((r) => r.pattern.trim() !== "" && !r.pattern.startsWith("#"));
}
