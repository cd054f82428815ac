/** `ext --version` from source: the commit comes from git (the compiled binary's is baked in: test/binary/commands.slow.test.ts). */
import { expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { gitCommit, versionLine } from "../../tools/cli/lib/version";
import { cleanEnv } from "../helpers/clean-env";

const ROOT = join(import.meta.dir, "../..");

test("from source, --version names the checkout's commit and the running Bun", async () => {
  const proc = Bun.spawn([join(ROOT, "node_modules/.bin/bun"), join(ROOT, "tools/cli/main.ts"), "--version"], {
    cwd: mkdtempSync(join(tmpdir(), "ext-version-")),
    env: cleanEnv(),
    stdout: "pipe",
  });
  expect(await new Response(proc.stdout).text()).toBe(
    `${pkg.version} (commit ${gitCommit(ROOT)}, bun ${Bun.version})\n`,
  );
  expect(await proc.exited).toBe(0);
});

test("gitCommit: 12 hex digits in a checkout, null outside one", () => {
  expect(gitCommit(ROOT)).toMatch(/^[0-9a-f]{12}(-dirty)?$/);
  expect(gitCommit(mkdtempSync(join(tmpdir(), "ext-no-git-")))).toBeNull();
  expect(versionLine("9.9.9")).toStartWith("9.9.9 (commit ");
});
