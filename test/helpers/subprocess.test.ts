/** The server subprocess of the memory and crash tests must not inherit the developer's EXT_* settings. */

import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readServerFile } from "../../common/server-file";
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
      // On disk, not in memory; and the shell's admin token is not the server's (it generated its own).
      expect(existsSync(join(dataDir, "ext.sqlite"))).toBe(true);
      const clock = new URL("/_emulator/clock", server.url);
      const shellToken = await fetch(clock, { headers: { authorization: "Bearer from-the-shell" } });
      expect(shellToken.status).toBe(401);
      const own = readServerFile(dataDir)?.adminToken;
      expect((await fetch(clock, { headers: { authorization: `Bearer ${own}` } })).status).toBe(200);
    } finally {
      await server.stop();
    }
  }, 30_000);
});
