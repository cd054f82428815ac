// @ts-check
/**
 * Where the `ext` executable of this platform is: `EXT_BINARY` when set, else the file inside the
 * platform package npm installed for this machine (`@ext-emulator/<os>-<cpu>`, an optional dependency
 * chosen by its `os`/`cpu` fields, the way esbuild and Biome ship theirs).
 */
"use strict";
const { existsSync, readFileSync, realpathSync } = require("node:fs");
const { join, resolve } = require("node:path");

/** This package's own launcher: EXT_BINARY naming it (or a link to it) would make `ext` run itself forever. */
const LAUNCHER = join(__dirname, "../bin/ext.cjs");

/** `${process.platform}-${process.arch}` → the package holding that platform's binary. */
const PLATFORM_PACKAGES = {
  "linux-x64": "@ext-emulator/linux-x64",
  "linux-arm64": "@ext-emulator/linux-arm64",
  "darwin-x64": "@ext-emulator/darwin-x64",
  "darwin-arm64": "@ext-emulator/darwin-arm64",
  "win32-x64": "@ext-emulator/win32-x64",
};

class BinaryNotFoundError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = "BinaryNotFoundError";
  }
}

/** @returns {string} */
function ownVersion() {
  return JSON.parse(readFileSync(join(__dirname, "../package.json"), "utf8")).version;
}

/** The platform package for this machine, or undefined when none is built for it. */
function platformPackage(platform = process.platform, arch = process.arch) {
  return /** @type {Record<string, string>} */ (PLATFORM_PACKAGES)[`${platform}-${arch}`];
}

/**
 * The absolute path of the `ext` executable to run.
 * @param {NodeJS.ProcessEnv} [env]
 * @returns {string}
 */
function binaryPath(env = process.env) {
  if (env.EXT_BINARY) {
    // Absolute: a bare name would be looked up on PATH by spawn, where node_modules/.bin/ext is this launcher.
    const bin = resolve(env.EXT_BINARY);
    if (!existsSync(bin)) throw new BinaryNotFoundError(`EXT_BINARY is set to ${env.EXT_BINARY}, which does not exist`);
    if (realpathSync(bin) === realpathSync(LAUNCHER))
      throw new BinaryNotFoundError(
        `EXT_BINARY is set to ${env.EXT_BINARY}, which is this package's ext launcher, not the ext executable; point it at the binary`,
      );
    return bin;
  }
  const pkg = platformPackage();
  if (!pkg) {
    const known = Object.keys(PLATFORM_PACKAGES).join(", ");
    throw new BinaryNotFoundError(
      `ext-emulator has no binary for ${process.platform}-${process.arch} (built for ${known}); set EXT_BINARY to an ext executable`,
    );
  }
  const file = process.platform === "win32" ? "ext.exe" : "ext";
  let dir;
  try {
    dir = join(require.resolve(`${pkg}/package.json`), "..");
  } catch {
    throw new BinaryNotFoundError(
      `ext-emulator: the package ${pkg} is missing; install it with: npm i -D ${pkg}@${ownVersion()} (or set EXT_BINARY)`,
    );
  }
  const bin = join(dir, "bin", file);
  if (!existsSync(bin))
    throw new BinaryNotFoundError(
      `ext-emulator: ${pkg} has no bin/${file}; reinstall it with: npm i -D ${pkg}@${ownVersion()}`,
    );
  return bin;
}

/** The installed package's root folder (the bundled helper asks here: a bundler fixes its own __dirname). */
const packageDir = join(__dirname, "..");

module.exports = { binaryPath, platformPackage, packageDir, BinaryNotFoundError, PLATFORM_PACKAGES };
