// Test helpers: a minimal compiled extension on disk, and `ext deploy` run on it as a user would.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { binaryPath, type EmulatorEnv } from "ext-emulator";

export function extensionDir(version: string): string {
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

/** `ext deploy DIR --extension ID --target local`: EXT_LOCAL_URL and EXT_API_KEY come from the emulator's env. */
export function deploy(env: EmulatorEnv, dir: string, extensionId: string): string {
  return execFileSync(
    binaryPath(),
    ["deploy", dir, "--extension", extensionId, "--changelog", "First release", "--target", "local"],
    {
      env: { ...process.env, ...env },
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
}
