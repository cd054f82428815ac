/**
 * The one place a fixture argument becomes a fixture: `--seed` / `EXT_SEED` of `ext serve`, `ext seed FILE`,
 * `ext exec --seed`, and `startEmulator({ fixture })` all come through here, so `demo` means the same
 * everywhere.
 */
import { statSync } from "node:fs";
import { join, resolve } from "node:path";
import { ReadRefusal } from "../../common/files/safe-read";
import { FIXTURE_JSON_MAX_BYTES, readJsonFileText } from "../../common/json/json-reader";
import { type BundleDir, checkBundleFiles } from "./bundle-files";
import { demoFixture } from "./demo";
import type { Fixture } from "./model";
import { parseFixtureText } from "./validate";

/** Why a fixture file cannot be read, in words (never errno text). */
function readFailure(code: string | undefined): string {
  if (code === "ENOENT")
    return "no such file (give the path of a JSON fixture, an export directory, or `demo` for the embedded one)";
  if (code === "EISDIR") return "this is a directory; give the path of a JSON fixture file";
  if (code === "EACCES" || code === "EPERM") return "permission denied";
  return "the file cannot be read";
}

/** Why a fixture file was refused: its size, nesting, or kind (a link, a device) said by the JSON reader. */
function refusal(e: unknown): string {
  const code = (e as NodeJS.ErrnoException | ReadRefusal).code;
  if (e instanceof ReadRefusal && (code === undefined || code === "ELOOP")) return `it ${e.message}`;
  return readFailure(code);
}

/** Reads and validates a fixture file; FixtureError when it is invalid, Error when it cannot be read. */
export function loadFixtureFile(path: string): Fixture {
  let text: string;
  try {
    // Not following a link, a regular file only, at most FIXTURE_JSON_MAX_BYTES and JSON_DEPTH_MAX levels.
    text = readJsonFileText(path, FIXTURE_JSON_MAX_BYTES);
  } catch (e) {
    throw new Error(`cannot read fixture ${path}: ${refusal(e)}`);
  }
  return parseFixtureText(text, path);
}

/** The file of an export directory that holds its fixture document; its bundles sit beside it. */
export const EXPORT_FIXTURE_FILE = "fixture.json";

/** A fixture and, for an export directory, the directory its bundle files are read from. */
export interface FixtureSource {
  fixture: Fixture;
  bundleDir: BundleDir;
}

const isDirectory = (path: string) => {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
};

/**
 * True when `arg` names the embedded demo fixture: `demo`, always. A file of that name is `./demo`: a bare `demo`
 * that read a file when one was there would let another user who can write the working directory (a shared
 * /tmp) choose the fixture, and the keys with it.
 */
export function namesDemo(arg: string): boolean {
  return arg === "demo";
}

/**
 * A fixture file, an export directory (`fixture.json` + `bundles/`), or `demo` for the demo fixture embedded
 * in the binary (a file named `demo` is `./demo`).
 */
export function resolveFixtureSource(arg: string): FixtureSource {
  if (namesDemo(arg)) return { fixture: demoFixture(), bundleDir: null };
  if (isDirectory(arg)) {
    // Absolute: a reset reads the bundles again, maybe after the process changed its working directory.
    const bundleDir = { dir: resolve(arg), label: arg };
    const fixture = loadFixtureFile(join(arg, EXPORT_FIXTURE_FILE));
    // Here too, not only in the loader: `ext seed DIR --target` sends the directory as an archive, and must
    // refuse what every other loader of the directory refuses.
    checkBundleFiles(bundleDir, fixture);
    return { fixture, bundleDir };
  }
  return { fixture: loadFixtureFile(arg), bundleDir: null };
}

export function resolveFixture(arg: string): Fixture {
  return resolveFixtureSource(arg).fixture;
}
