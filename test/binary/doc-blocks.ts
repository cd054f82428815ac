/**
 * The docs' code blocks as the tests that run them read them (./cli-examples.slow.test.ts, ./readme.slow.test.ts),
 * and the one way an example runs: as a user pastes it into `sh`.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { cleanEnv } from "./helpers";

/** A page of the repository (README.md, docs/…) as text. */
export const page = (path: string) => readFileSync(resolve(import.meta.dir, "../..", path), "utf8");

/** The ```<lang> blocks of a page, with the "## " heading each sits under. */
export function shellBlocks(markdown: string, lang = "sh"): { heading: string; script: string }[] {
  const blocks: { heading: string; script: string }[] = [];
  let heading = "";
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith("## ")) heading = line.slice(3);
    if (line.trim() !== `\`\`\`${lang}`) continue;
    const script: string[] = [];
    for (i++; i < lines.length && lines[i]!.trim() !== "```"; i++) script.push(lines[i]!);
    blocks.push({ heading, script: script.join("\n") });
  }
  return blocks;
}

/**
 * Runs a script as the examples are run: `sh -e`, with `ext` on PATH (`binDir`, the compiled binary's folder,
 * first). Output goes to files, not pipes, so a server the script leaves behind cannot hold the test up: it is
 * found by pid instead.
 */
export async function runExample(
  script: string,
  cwd: string,
  binDir: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = cleanEnv({ PATH: `${binDir}:${process.env.PATH ?? "/usr/bin:/bin"}` });
  const [out, errOut] = [join(cwd, ".stdout"), join(cwd, ".stderr")];
  const proc = Bun.spawn(["sh", "-e", "-c", script], {
    cwd,
    env,
    stdout: Bun.file(out),
    stderr: Bun.file(errOut),
    stdin: "ignore",
  });
  const code = await proc.exited;
  return { code, stdout: readFileSync(out, "utf8"), stderr: readFileSync(errOut, "utf8") };
}
