/**
 * The list's 200 leaves the app at once, as a Response rather than a Promise: the pre-routing step and the answer
 * step are synchronous, and Elysia composes the route without an await (server/http/pre-routing.ts). Elysia tells
 * from a function's source text whether to await it, so a later edit (a hook that returns a call) could undo this
 * silently; these tests fail then, from the sources and from the app bundled as the binary bundles it.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { BUNDLE_FLAGS } from "../../scripts/lib/compile";
import { SYNC_REQUESTS, syncAnswers } from "../helpers/sync-answers-probe";

const ROOT = resolve(import.meta.dir, "../..");
const everySync = Object.fromEntries(Object.keys(SYNC_REQUESTS).map((name) => [name, { sync: true, status: 200 }]));

describe("answers that leave the app at once", () => {
  test("from the sources", async () => {
    expect(await syncAnswers()).toEqual(everySync);
  });

  test("bundled with the binary's flags", () => {
    const dir = mkdtempSync(join(tmpdir(), "ext-sync-answers-"));
    try {
      const outfile = join(dir, "probe.js");
      const build = Bun.spawnSync(
        [
          process.execPath,
          "build",
          "test/helpers/sync-answers-probe.ts",
          "--target=bun",
          ...BUNDLE_FLAGS,
          "--outfile",
          outfile,
        ],
        { cwd: ROOT, stdout: "pipe", stderr: "pipe" },
      );
      expect(build.stderr.toString()).not.toContain("error");
      expect(build.exitCode).toBe(0);
      const run = Bun.spawnSync([process.execPath, outfile], { cwd: dir, stdout: "pipe", stderr: "pipe" });
      expect(run.stderr.toString()).toBe("");
      expect(JSON.parse(run.stdout.toString())).toEqual(everySync);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
