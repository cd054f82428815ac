/**
 * The address a server writes in its data directory (server.json, common/server-file.ts) for the CLI and
 * `ext seed --data-dir`: written once it listens, private to the user, naming its URL and PID, and removed
 * when it stops (unless a newer server has written its own there). A file that is not one is ignored.
 */
import { expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readServerFile, SERVER_FILE } from "../common/server-file";
import { checkServerProof } from "../common/server-proof-hmac";
import { parseServerConfig } from "../server/base/config";
import { createLogger } from "../server/base/logger";
import { startServer } from "../server/start/server";

const silent = { logger: createLogger("silent") };

test("written once listening, read back by ext seed, removed on stop", async () => {
  const dir = mkdtempSync(join(tmpdir(), "ext-server-file-"));
  try {
    const server = startServer(
      parseServerConfig({ dataDir: dir, port: 0, logLevel: "silent", seed: null }, {}),
      silent,
    );
    const file = join(dir, SERVER_FILE);
    try {
      const found = readServerFile(dir);
      expect(found).toEqual({ url: server.url, pid: process.pid, adminToken: server.runtime.control.adminToken });
      if (process.platform !== "win32") expect(statSync(file).mode & 0o777).toBe(0o600);
      // What the file says is enough to call the control plane: its URL and its token.
      const res = await fetch(`${found!.url}/_emulator/state`, {
        headers: { authorization: `Bearer ${found!.adminToken}` },
      });
      expect(res.status).toBe(200);
    } finally {
      await server.stop();
    }
    expect(existsSync(file)).toBe(false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("--host localhost: the URL names the address bound, never the name, and the proof is made for it", async () => {
  const dir = mkdtempSync(join(tmpdir(), "ext-server-file-"));
  try {
    const server = startServer(
      parseServerConfig({ dataDir: dir, host: "localhost", port: 0, logLevel: "silent", seed: null }, {}),
      silent,
    );
    try {
      const found = readServerFile(dir)!;
      expect(found.url).toMatch(/^http:\/\/(127\.0\.0\.1|\[::1\]):\d+$/);
      expect(found.url).toBe(server.url);
      const nonce = "n".repeat(43);
      const res = await fetch(`${found.url}/healthz?challenge=${nonce}`);
      const { proof } = (await res.json()) as { proof?: string };
      expect(checkServerProof(found.adminToken!, nonce, found.url, proof)).toBe(true);
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a stop leaves a newer server's address alone; an address that is not one is ignored", async () => {
  const dir = mkdtempSync(join(tmpdir(), "ext-server-file-"));
  try {
    const server = startServer(
      parseServerConfig({ dataDir: dir, port: 0, logLevel: "silent", seed: null }, {}),
      silent,
    );
    const file = join(dir, SERVER_FILE);
    const newer = JSON.stringify({ url: "http://127.0.0.1:1", pid: 1 });
    writeFileSync(file, newer);
    await server.stop();
    expect(readFileSync(file, "utf8")).toBe(newer);
    for (const bad of ["not json", '{"url":"file:///etc/passwd","pid":1}', '{"url":"http://x","pid":-1}']) {
      writeFileSync(file, bad);
      expect(readServerFile(dir)).toBeNull();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
