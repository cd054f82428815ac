/**
 * The parity loop is given in three places a user meets: docs/profiles.md (its home), the README, and the
 * dashboard's Profile page. The same three commands in each, so a fix to one cannot leave the others behind.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");
const read = (path: string) => readFileSync(resolve(ROOT, path), "utf8");

/** The commands of the first fenced block after `heading`: comments and `npx ` dropped. */
function commandsAfter(text: string, heading: string): string[] {
  const from = text.indexOf(heading);
  expect(from).toBeGreaterThanOrEqual(0);
  const block = /```\w*\n([\s\S]*?)```/.exec(text.slice(from))![1]!;
  return commandsOf(block);
}

const commandsOf = (block: string) =>
  block
    .split("\n")
    .map((line) =>
      line
        .replace(/\s+#.*$/, "")
        .replace(/\bnpx ext\b/, "ext")
        .trim(),
    )
    .filter((line) => line !== "" && !line.startsWith("#"));

test("docs/profiles.md, the README and the dashboard's Profile page give the same loop", () => {
  const home = commandsAfter(read("docs/profiles.md"), "## The loop");
  expect(home).toHaveLength(3);
  expect(commandsAfter(read("README.md"), "## Is the platform like the emulator?")).toEqual(home);
  const page = /label="profile commands"\s*text=\{\s*"((?:[^"\\]|\\.)*)"/.exec(read("ui/src/pages/profile.tsx"));
  expect(page).not.toBeNull();
  expect(commandsOf(JSON.parse(`"${page![1]}"`))).toEqual(home);
});
