/**
 * A server.json left by a server killed outright (its pid is gone) is not trusted, even when its URL answers
 * and proves itself: `local` then finds no server (no default address is guessed). Checked on the CLI's
 * resolution itself, so no request goes to a fixed port (another program may hold 4780 here).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeServerFile } from "../../common/server-file";
import { serverProof } from "../../common/server-proof-hmac";
import { resolveServer } from "../../tools/cli/lib/target";
import { parseClientEnv } from "../../tools/config";

const TOKEN = "adm_stale-server-file-test-token-0123456789abc";
let answering: ReturnType<typeof Bun.serve>;
let url: string;
let dataDir: string;
beforeAll(() => {
  // Answers the challenge as the emulator holding TOKEN does, so only the pid can tell the file is stale.
  answering = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (req) => {
      const nonce = new URL(req.url).searchParams.get("challenge") ?? "";
      return Response.json({ status: "ok", proof: serverProof(TOKEN, nonce, url) });
    },
  });
  url = `http://127.0.0.1:${answering.port}`;
  dataDir = mkdtempSync(join(tmpdir(), "ext-stale-server-file-"));
});
afterAll(() => {
  answering.stop(true);
  rmSync(dataDir, { recursive: true, force: true });
});

test("a live pid and an answering URL that proves itself: the folder's server is used", async () => {
  writeServerFile(dataDir, { url, pid: process.pid, adminToken: TOKEN });
  const { endpoints } = await resolveServer({}, parseClientEnv({ EXT_DATA_DIR: dataDir }));
  expect(endpoints.root).toBe(url);
});

test("a dead pid: the file is not used, though its URL answers; no other address is guessed", async () => {
  const gone = Bun.spawn(["true"]);
  await gone.exited;
  writeServerFile(dataDir, { url, pid: gone.pid, adminToken: TOKEN });
  const resolving = resolveServer({}, parseClientEnv({ EXT_DATA_DIR: dataDir }));
  await expect(resolving).rejects.toThrow(`no emulator found for the data directory ${dataDir}`);
});
