/**
 * `ext serve` (and `ext seed --data-dir`) failing for a reason of the machine, told as one line that names
 * the setting, its value and what to do, never errno text ("EEXIST: file already exists, mkdir").
 * The data directory is checked before anything is opened, so a file in its place or a read-only disk is
 * found with the path at hand; whatever still fails later is translated from the error it throws.
 */
import { closeSync, existsSync, mkdirSync, openSync, rmSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { DEFAULT_DATA_DIR, DEFAULT_HOST, DEFAULT_PORT } from "../../../common/addresses";
import {
  checkDataDirOwner,
  DataDirOwnerError,
  ENV_NAMES,
  ignoreInVersionControl,
  ProfileError,
  type ServerConfig,
  type ServerFlags,
} from "../../../server";
import { EXIT } from "../output";

/** A start-up failure of the machine or of a setting's value; `exitCode` 2 when the value is the problem. */
export class StartupError extends Error {
  override name = "StartupError";
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

type Setting = "host" | "port" | "dataDir" | "profile" | "seed";
const FLAGS: Record<Setting, string> = {
  host: "--host",
  port: "--port",
  dataDir: "--data-dir",
  profile: "--profile",
  seed: "--seed",
};
const DEFAULTS: Record<Setting, string> = {
  host: DEFAULT_HOST,
  port: String(DEFAULT_PORT),
  dataDir: DEFAULT_DATA_DIR,
  profile: "",
  seed: "",
};

/** "--data-dir ./x", "EXT_DATA_DIR=./x" or "the default data dir ./.ext-data": where the value came from. */
export function named(setting: Setting, value: string, flags: ServerFlags): string {
  if (flags[setting] !== undefined && flags[setting] !== null) return `${FLAGS[setting]} ${value}`;
  if (value !== DEFAULTS[setting]) return `${ENV_NAMES[setting]}=${value}`;
  return `${FLAGS[setting]} ${value} (the default)`;
}

const REASONS: Record<string, string> = {
  EACCES: "permission denied",
  EPERM: "the file system does not permit it: an immutable file?",
  EROFS: "it is on a read-only file system",
  ENOSPC: "the disk is full",
  EDQUOT: "the disk quota is used up",
  ENOTDIR: "part of the path is a file, not a directory",
  EEXIST: "a file is in the way",
  SQLITE_READONLY: "the database file is read-only",
  SQLITE_CANTOPEN: "the database file cannot be opened for writing",
  SQLITE_FULL: "the disk is full",
  SQLITE_IOERR: "a disk write failed",
};

const codeOf = (e: unknown): string | undefined => (e as { code?: unknown })?.code as string | undefined;
const reasonOf = (e: unknown): string =>
  REASONS[codeOf(e) ?? ""] ?? REASONS[(codeOf(e) ?? "").replace(/_[A-Z]+$/, "")] ?? "it cannot be written";

function notWritable(config: ServerConfig, flags: ServerFlags, reason: string): StartupError {
  return new StartupError(
    `${named("dataDir", config.dataDir, flags)}: cannot write there (${reason}); give a writable directory with --data-dir, or run with --memory`,
    EXIT.runtime,
  );
}

/** Opens a file for writing and closes it again: the one check that holds for root, who ignores file modes. */
function probeWritable(path: string, create: boolean): void {
  closeSync(openSync(path, create ? "wx" : "r+"));
  if (create) rmSync(path, { force: true });
}

/** The data directory exists (or is created) and everything `ext serve` writes there can be written. */
export function checkDataDir(config: ServerConfig, flags: ServerFlags): void {
  if (config.memory) return;
  const dir = resolve(config.dataDir);
  if (existsSync(dir) && !statSync(dir).isDirectory()) {
    throw new StartupError(
      `${named("dataDir", config.dataDir, flags)}: this is a file, not a directory; give a directory (it is created if missing), or run with --memory`,
      EXIT.usage,
    );
  }
  const created = !existsSync(dir);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (created) ignoreInVersionControl(dir);
  } catch (e) {
    if (codeOf(e) === "ENOTDIR" || codeOf(e) === "EEXIST") {
      throw new StartupError(
        `${named("dataDir", config.dataDir, flags)}: part of this path is a file, not a directory; give a directory path`,
        EXIT.usage,
      );
    }
    throw notWritable(config, flags, reasonOf(e));
  }
  // Before the probes: another user's directory is said to be one, not "cannot write there".
  try {
    checkDataDirOwner(dir);
  } catch (e) {
    throw new StartupError(`${named("dataDir", config.dataDir, flags)}: ${(e as Error).message}`, EXIT.runtime);
  }
  try {
    probeWritable(join(dir, `.ext-write-check-${process.pid}`), true);
    for (const file of ["ext.sqlite", "ext.sqlite-wal", "ext.sqlite-shm", "secrets.key"])
      if (existsSync(join(dir, file))) probeWritable(join(dir, file), false);
    if (existsSync(join(dir, "blobs"))) probeWritable(join(dir, "blobs", `.ext-write-check-${process.pid}`), true);
  } catch (e) {
    throw notWritable(config, flags, reasonOf(e));
  }
}

/** An error thrown while starting, as one line, or null when it is none of the machine-level ones known here. */
export function describeStartupError(e: unknown, config: ServerConfig, flags: ServerFlags): StartupError | null {
  if (e instanceof StartupError) return e;
  // A profile that does not load: the file (or the seed that carried it), the entry and why, exit 2.
  if (e instanceof ProfileError)
    return new StartupError(
      config.profile
        ? `${named("profile", config.profile, flags)}: ${e.message}`
        : `${named("seed", config.seed ?? "", flags)}: the profile it carries: ${e.message}`,
      EXIT.usage,
    );
  if (e instanceof DataDirOwnerError)
    return new StartupError(`${named("dataDir", config.dataDir, flags)}: ${e.message}`, EXIT.runtime);
  const code = codeOf(e);
  if ((e as { syscall?: string })?.syscall === "listen") {
    if (code === "EACCES" || code === "EPERM") {
      return new StartupError(
        `${named("port", String(config.port), flags)}: this port needs privileges this user does not have; choose one above 1023, or --port 0 for a free one`,
        EXIT.runtime,
      );
    }
    return new StartupError(
      `${named("host", config.host, flags)}: cannot listen there: not a valid address of this machine; give one of its IP addresses or host names, e.g. 127.0.0.1 (this machine only) or 0.0.0.0 (every interface)`,
      EXIT.usage,
    );
  }
  if (config.memory) return null;
  if (code === "SQLITE_CORRUPT" || code === "SQLITE_NOTADB") {
    return new StartupError(
      `${named("dataDir", config.dataDir, flags)}: ext.sqlite there is damaged or not a SQLite database; move it away, or give another --data-dir`,
      EXIT.runtime,
    );
  }
  const sqliteWrite = /^SQLITE_(READONLY|CANTOPEN|FULL|IOERR)/.test(code ?? "");
  if (sqliteWrite || ["EACCES", "EPERM", "EROFS", "ENOSPC", "EDQUOT"].includes(code ?? ""))
    return notWritable(config, flags, reasonOf(e));
  if (code === "ENOTDIR" || code === "EEXIST")
    return new StartupError(
      `${named("dataDir", config.dataDir, flags)}: ${reasonOf(e)}; give a directory path`,
      EXIT.usage,
    );
  return null;
}
