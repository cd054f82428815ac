/**
 * The address a server publishes in its data directory (src/server-address.ts) for `ext seed --data-dir`:
 * written once it listens, private to the user, naming its control plane and PID, and removed when it stops
 * (unless a newer server has written its own there). A memory-mode server has no data directory to write to.
 */
import { expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseServerConfig } from "../src/config";
import { createLogger } from "../src/logger";
import { startServer } from "../src/server";
import { readServerAddress, SERVER_ADDRESS_FILE } from "../src/server-address";

const silent = { logger: createLogger("silent") };

test("written once listening, read back by ext seed, removed on stop", async () => {
  const dir = mkdtempSync(join(tmpdir(), "ext-address-"));
  try {
    const server = startServer(
      parseServerConfig({ dataDir: dir, port: 0, logLevel: "silent", seed: null }, {}),
      silent,
    );
    const file = join(dir, SERVER_ADDRESS_FILE);
    try {
      expect(readServerAddress(dir)).toEqual({ adminUrl: server.adminUrl, pid: process.pid });
      if (process.platform !== "win32") expect(statSync(file).mode & 0o777).toBe(0o600);
      const res = await fetch(`${readServerAddress(dir)!.adminUrl}/state`);
      expect(res.status).toBe(200);
    } finally {
      await server.stop();
    }
    expect(existsSync(file)).toBe(false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a stop leaves a newer server's address alone; an address that is not one is ignored", async () => {
  const dir = mkdtempSync(join(tmpdir(), "ext-address-"));
  try {
    const server = startServer(
      parseServerConfig({ dataDir: dir, port: 0, logLevel: "silent", seed: null }, {}),
      silent,
    );
    const file = join(dir, SERVER_ADDRESS_FILE);
    const newer = JSON.stringify({ adminUrl: "http://127.0.0.1:1/_emulator", pid: 1 });
    writeFileSync(file, newer);
    await server.stop();
    expect(readFileSync(file, "utf8")).toBe(newer);
    for (const bad of ["not json", '{"adminUrl":"file:///etc/passwd","pid":1}', '{"adminUrl":"http://x","pid":-1}']) {
      writeFileSync(file, bad);
      expect(readServerAddress(dir)).toBeNull();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
