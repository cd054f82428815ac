// One emulator per test file: node --test runs each file in its own process, at the same time as the
// others, so each file starts its own (a free port, its own in-memory data) and resets it before each test.

import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, beforeEach } from "node:test";
import { binaryPath, startEmulator } from "ext-emulator";

/** Call at the top of a test file; `emulator.current` is set once `before` has run. */
export function useEmulator(options) {
  const emulator = { current: undefined };
  before(async () => {
    emulator.current = await startEmulator(options);
  });
  beforeEach(() => emulator.current.reset());
  after(() => emulator.current?.stop());
  return emulator;
}

export function api(emulator, path, init = {}) {
  return fetch(emulator.baseUrl + path, {
    ...init,
    headers: { authorization: `Bearer ${emulator.apiKey}`, "content-type": "application/json" },
  });
}

export function extensionDir(version) {
  const dir = mkdtempSync(join(tmpdir(), "my-extension-"));
  mkdirSync(join(dir, "sounds"));
  // An MP3 header is enough for the bundle checks.
  writeFileSync(join(dir, "sounds/ding.mp3"), Buffer.from([0x49, 0x44, 0x33, 3, 0, 0, 0, 0, 0, 0]));
  writeFileSync(
    join(dir, "manifest.json"),
    JSON.stringify({ version, sounds: [{ name: "ding", file: "sounds/ding.mp3" }] }),
  );
  return dir;
}

/** `ext deploy DIR --extension ID --target local`, aimed at this emulator through its env. */
export function deploy(emulator, dir, extensionId) {
  return execFileSync(
    binaryPath(),
    ["deploy", dir, "--extension", extensionId, "--changelog", "First release", "--target", "local"],
    {
      env: { ...process.env, ...emulator.env },
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
}
