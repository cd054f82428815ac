/**
 * `ext init --name` takes any text; the commands it prints ("next:") and writes into the README must give a
 * shell that exact text back as one word, never run a part of it.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { BUILD_TIMEOUT_MS, type Built, buildBinary, cleanEnv, run } from "./helpers";

let built: Built;
beforeAll(() => {
  built = buildBinary();
}, BUILD_TIMEOUT_MS);
afterAll(() => built?.cleanup());

/** What `sh` makes of `text` as the arguments of a command: each word on its own line. */
function wordsOf(text: string, cwd: string): string {
  const r = Bun.spawnSync(["sh", "-c", `printf '%s\\n' ${text}`], { cwd, env: cleanEnv(), stdout: "pipe" });
  return r.stdout.toString();
}

test.each([
  [`x"; touch pwned; echo "`, "next-1"],
  [`it's $(touch pwned) \`touch pwned\` a board`, "next-2"],
])("a name the shell would run (%p) is quoted for the shell in the next steps and the README", async (name, dir) => {
  const cwd = mkdtempSync(join(built.work, "init-quote-"));
  const r = await run(built.bin, ["init", dir, "--name", name], { cwd });
  expect(r.code).toBe(0);
  const printed = /\n {2}ext extensions create --name (.*) {5}\(prints/.exec(r.stdout)?.[1];
  const readme = readFileSync(join(cwd, dir, "README.md"), "utf8");
  const written = /npx ext extensions create --name (.*?) +# prints/.exec(readme)?.[1];
  for (const command of [printed, written]) {
    expect(command).toBeString();
    expect(wordsOf(command!, cwd)).toBe(`${name}\n`);
  }
  expect(existsSync(join(cwd, "pwned"))).toBe(false);
  expect(r.stdout).toContain(`\n  ext deploy ${dir} --extension ID`);
});
