/**
 * `--export-on-exit DIR` never loses the state to a DIR it cannot use (a folder someone else planted there,
 * one that is not an export, a path under a file): the finished export is kept and the log says where.
 */
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EmulatorClock } from "../../server/base/clock";
import { parseServerConfig } from "../../server/base/config";
import { createLogger } from "../../server/base/logger";
import { demoFixture } from "../../server/seed/demo";
import { startServer } from "../../server/start/server";

const work = mkdtempSync(join(tmpdir(), "ext-export-kept-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A --memory server with the demo fixture and --export-on-exit `dir`, stopped; what it logged. */
async function exportOnExitInto(dir: string): Promise<string[]> {
  const lines: string[] = [];
  const config = {
    ...parseServerConfig({ port: 0, memory: true, logLevel: "error", rateLimits: false }, {}),
    exportOnExit: dir,
  };
  const emulator = startServer(config, {
    clock: new EmulatorClock(),
    logger: createLogger("error", (l) => lines.push(l)),
    seedFixture: demoFixture(),
  });
  await emulator.stop();
  return lines;
}

const keptAtOf = (lines: string[]) => {
  const line = lines.find((l) => l.includes("the state is kept elsewhere"));
  expect(line).toBeDefined();
  return /keptAt=(\S+)/.exec(line!)![1]!;
};

test("a folder that is not an export (as one planted by another user): refused, the export kept beside it and named", async () => {
  const planted = join(work, "planted");
  mkdirSync(planted);
  writeFileSync(join(planted, "notes.txt"), "someone else's");
  const lines = await exportOnExitInto(planted);
  const keptAt = keptAtOf(lines);
  expect(lines.join("\n")).toContain("is not empty and holds no earlier export");
  expect(JSON.parse(readFileSync(join(keptAt, "fixture.json"), "utf8")).accounts[0].id).toBe("acc_demo");
  expect(readFileSync(join(planted, "notes.txt"), "utf8")).toBe("someone else's");
});

test("a path nothing can be made beside (under a file): the export is kept in a private temporary folder", async () => {
  writeFileSync(join(work, "a-file"), "");
  const lines = await exportOnExitInto(join(work, "a-file", "state"));
  const keptAt = keptAtOf(lines);
  expect(lines.join("\n")).toContain("reason=it, or a folder above it, is a file");
  expect(existsSync(join(keptAt, "fixture.json"))).toBe(true);
  rmSync(keptAt, { recursive: true, force: true });
});
