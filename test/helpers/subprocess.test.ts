/** The server subprocess of the memory and crash tests must not inherit the developer's EXT_* settings. */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { baseFixture } from "./emulator";
import { spawnServer, writeFixture } from "./subprocess";

const dir = mkdtempSync(join(tmpdir(), "ext-subprocess-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("spawnServer", () => {
  test("ignores the shell's EXT_* variables: EXT_MEMORY=1 would make the crash test meaningless", async () => {
    const dataDir = join(dir, "data");
    const shell = { ...process.env, EXT_MEMORY: "1", EXT_ADMIN_TOKEN: "from-the-shell" };
    const server = await spawnServer(dataDir, writeFixture(dir, baseFixture()), { shell });
    try {
      // On disk, not in memory; and the control plane open on loopback (no admin token was set).
      expect(existsSync(join(dataDir, "ext.sqlite"))).toBe(true);
      expect((await fetch(new URL("/_emulator/clock", server.url))).status).toBe(200);
    } finally {
      await server.stop();
    }
  }, 30_000);
});
