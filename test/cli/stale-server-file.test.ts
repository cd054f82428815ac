/**
 * A server.json left by a server killed outright (its pid is gone) is not trusted, even when its URL answers:
 * `local` then means the default address, said with the hint of where the CLI looked. Checked on the
 * resolution itself, so no request goes to the default address (another program may hold 4780 here).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolveServer } from "../../cli/lib/target";
import { parseClientEnv } from "../../src/config";
import { writeServerFile } from "../../src/server-file";

let answering: ReturnType<typeof Bun.serve>;
let url: string;
let dataDir: string;
beforeAll(() => {
  // Answers /healthz as an emulator does, so only the pid can tell the file is stale.
  answering = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => Response.json({ status: "ok" }) });
  url = `http://127.0.0.1:${answering.port}`;
  dataDir = mkdtempSync(join(tmpdir(), "ext-stale-server-file-"));
});
afterAll(() => {
  answering.stop(true);
  rmSync(dataDir, { recursive: true, force: true });
});

test("a live pid and an answering URL: the folder's server is used", async () => {
  writeServerFile(dataDir, { url, pid: process.pid });
  const { endpoints } = await resolveServer({}, parseClientEnv({ EXT_DATA_DIR: dataDir }));
  expect(endpoints.root).toBe(url);
});

test("a dead pid: the file is not used, though its URL answers; the default address is, with the hint", async () => {
  const gone = Bun.spawn(["true"]);
  await gone.exited;
  writeServerFile(dataDir, { url, pid: gone.pid });
  const { endpoints } = await resolveServer({}, parseClientEnv({ EXT_DATA_DIR: dataDir }));
  expect(endpoints.root).toBe("http://127.0.0.1:4780");
  expect(endpoints.unreachableHint).toContain(`none answers from ${join(dataDir, "server.json")}`);
});
