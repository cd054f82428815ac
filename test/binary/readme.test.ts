/**
 * The README's CLI reference is executable documentation: every ```sh block under "## CLI reference" is
 * run, as written, with the compiled binary on PATH as `ext`, each in an empty directory.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { buildBinary, cleanEnv, type Built } from "./helpers";

const README = readFileSync(resolve(import.meta.dir, "../../README.md"), "utf8");

/** The ```sh blocks of one "## " section, with the "### " heading each sits under. */
export function shellBlocks(markdown: string, section: string): { heading: string; script: string }[] {
  const start = markdown.indexOf(`\n## ${section}\n`);
  if (start < 0) return [];
  const next = markdown.indexOf("\n## ", start + 1);
  const body = markdown.slice(start, next < 0 ? undefined : next);
  const blocks: { heading: string; script: string }[] = [];
  let heading = section;
  const lines = body.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith("### ")) heading = line.slice(4);
    if (line.trim() !== "```sh") continue;
    const script: string[] = [];
    for (i++; i < lines.length && lines[i]!.trim() !== "```"; i++) script.push(lines[i]!);
    blocks.push({ heading, script: script.join("\n") });
  }
  return blocks;
}

const blocks = shellBlocks(README, "CLI reference");
let built: Built;

beforeAll(() => {
  built = buildBinary();
});
afterAll(() => built?.cleanup());

describe("README: CLI reference", () => {
  test("documents every command with at least one example", () => {
    for (const cmd of ["serve", "deploy", "seed", "exec"]) {
      expect(blocks.some((b) => b.heading.startsWith(`\`ext ${cmd}`) && b.script.includes(`ext ${cmd}`))).toBe(true);
    }
  });

  test.each(blocks.map((b, i) => [`${i + 1}: ${b.heading}`, b.script]))("example %s runs and exits 0", async (_name, script) => {
    const cwd = mkdtempSync(join(built.work, "readme-"));
    const env = cleanEnv({ PATH: `${dirname(built.bin)}:${process.env.PATH ?? "/usr/bin:/bin"}` });
    const proc = Bun.spawn(["sh", "-e", "-c", script], { cwd, env, stdout: "pipe", stderr: "pipe" });
    const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
    const code = await proc.exited;
    if (code !== 0) throw new Error(`exit ${code}\n--- script\n${script}\n--- stdout\n${stdout}\n--- stderr\n${stderr}`);
    expect(code).toBe(0);
  });
});
