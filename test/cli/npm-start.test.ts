/**
 * The README's first command, literally: `npm start` serves the demo account, and the README's curl answers
 * 200 {"extensions":[]}. Port, data directory and ready file come from the environment (flags → env →
 * defaults), so the test needs no edit of the command itself.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cleanEnv } from "../helpers/clean-env";
import { readReadyFile } from "../helpers/ready-file";

const ROOT = join(import.meta.dir, "../..");
const README = readFileSync(join(ROOT, "README.md"), "utf8");

describe("npm start (README quick start)", () => {
  test('serves the demo account; the README\'s curl answers 200 {"extensions":[]}', async () => {
    expect(README).toContain("npm ci && npm start");
    const curl =
      /printf 'Authorization: Bearer %s\\n' (\S+) \| curl -H @- http:\/\/127\.0\.0\.1:4780(\/developer\/v1\/extensions)/.exec(
        README,
      );
    expect(curl).not.toBeNull();
    const dir = mkdtempSync(join(tmpdir(), "ext-npm-start-"));
    const ready = join(dir, "ready.json");
    const proc = Bun.spawn(["npm", "start", "--silent"], {
      cwd: ROOT,
      env: {
        ...cleanEnv(),
        EXT_PORT: "0",
        EXT_DATA_DIR: join(dir, "data"),
        EXT_READY_FILE: ready,
        EXT_LOG_LEVEL: "warn",
      },
      stdout: "pipe",
      stderr: "pipe",
    });
    try {
      const { url, pid } = await readReadyFile<{ url: string; pid: number }>(ready, () => proc.exitCode !== null);
      const res = await fetch(url + curl![2]!, { headers: { Authorization: `Bearer ${curl![1]}` } });
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('{"extensions":[]}');
      // Stop the server itself (npm's child), then make sure nothing is left listening.
      process.kill(pid, "SIGTERM");
      expect(await proc.exited).toBe(0);
      expect(
        await fetch(`${url}/healthz`).then(
          () => "up",
          () => "down",
        ),
      ).toBe("down");
    } finally {
      if (proc.exitCode === null) proc.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
