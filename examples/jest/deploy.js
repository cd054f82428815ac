// Test helpers: a minimal compiled extension on disk, and `ext deploy` run on it as a user would.
const { execFileSync } = require("node:child_process");
const { mkdirSync, mkdtempSync, writeFileSync } = require("node:fs");
const { tmpdir } = require("node:os");
const { join } = require("node:path");
const { binaryPath } = require("ext-emulator");

function extensionDir(version) {
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

/** `ext deploy DIR --extension ID --target local`: EXT_LOCAL_URL and EXT_API_KEY are in process.env (global-setup.js). */
function deploy(dir, extensionId) {
  return execFileSync(
    binaryPath(),
    ["deploy", dir, "--extension", extensionId, "--changelog", "First release", "--target", "local"],
    { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
  );
}

module.exports = { extensionDir, deploy };
