/**
 * Which emulator a command means when the user names none: found as git finds `.git`, by walking up from the
 * working directory to the nearest data directory (`.ext-data`, or EXT_DATA_DIR alone when set) whose
 * server.json is this user's private file naming a live process; then verified before anything else is
 * sent: the server must answer a fresh challenge with an HMAC keyed by the admin token in that file
 * (common/server-proof-hmac.ts). A listener that took the port, or any other server, learns nothing: the
 * challenge carries no key, no token and no secret. No port is ever guessed.
 */
import { lstatSync } from "node:fs";
import { isIP } from "node:net";
import { dirname, join, resolve } from "node:path";
import { DEFAULT_DATA_DIR } from "../../../common/addresses";
import { readServerFile, type ServerFile } from "../../../common/server-file";
import { printable } from "../../../common/text/printable";
import { type Endpoints, endpointsFromAnyUrl } from "../../calls/http";
import { UsageError } from "../../calls/usage-error";
import type { ClientEnv } from "../../config";
import { err } from "../output";

export interface FoundServer {
  endpoints: Endpoints;
  /** The admin token from the data directory's server.json, proven held by the server. */
  adminToken: string;
  dataDir: string;
}

/** A server that was found but did not prove it is the emulator of its data directory. */
export class UnprovenServerError extends Error {
  override name = "UnprovenServerError";
  constructor(url: string, dataDir: string, why: string) {
    super(`the server at ${url} did not prove it is the emulator of ${dataDir}: ${why}`);
  }
}

/** The data directories a command in `cwd` may belong to, nearest first. */
export function candidateDataDirs(env: ClientEnv, cwd: string): string[] {
  if (env.dataDir !== null) return [resolve(cwd, env.dataDir)];
  const dirs: string[] = [];
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    dirs.push(join(dir, DEFAULT_DATA_DIR));
    if (dirname(dir) === dir) return dirs;
  }
}

/**
 * Why a data directory found by walking up is not this user's own (a link, another user's folder, one that
 * others may write), or null when it is, or when there is none. Another user could plant `.ext-data` above
 * the working directory — a link to another of this user's projects, or a folder of their own — and send this
 * user's commands to a server the user did not mean.
 */
export function foreignDataDir(dataDir: string): string | null {
  let st: ReturnType<typeof lstatSync>;
  try {
    st = lstatSync(dataDir);
  } catch {
    return null;
  }
  if (st.isSymbolicLink()) return "it is a link";
  if (!st.isDirectory()) return "it is not a folder";
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) return `it belongs to another user (uid ${st.uid})`;
  if ((st.mode & 0o022) !== 0) return "other users may write to it";
  return null;
}

/**
 * The nearest data directory with a usable server.json whose process still runs; null when there is none. A
 * directory found by walking up that is not the user's own is skipped, saying so through `warn`.
 */
export function nearestServerFile(
  env: ClientEnv,
  cwd: string,
  warn: (line: string) => void = err,
): { dataDir: string; info: ServerFile } | null {
  for (const dataDir of candidateDataDirs(env, cwd)) {
    const foreign = env.dataDir === null ? foreignDataDir(dataDir) : null;
    if (foreign !== null) {
      warn(`warning: skipped ${printable(dataDir)}: ${foreign}, so it may not be your project's data directory`);
      continue;
    }
    const info = readServerFile(dataDir);
    if (info && processAlive(info.pid)) return { dataDir, info };
  }
  return null;
}

/** The verified server of this folder, or a usage error saying how to start or name one. */
/** The verified server of this folder; `timeoutMs` bounds each request to it (default EXT_REQUEST_TIMEOUT). */
export async function findServer(env: ClientEnv, cwd: string, timeoutMs?: number): Promise<FoundServer> {
  const found = nearestServerFile(env, cwd);
  // The message says what to do; the flags list would bury it.
  if (!found) throw new UsageError(nothingFound(env, cwd), false);
  return await verifyServer(found.dataDir, found.info, timeoutMs);
}

function nothingFound(env: ClientEnv, cwd: string): string {
  const where =
    env.dataDir !== null
      ? `for the data directory ${resolve(cwd, env.dataDir)} (EXT_DATA_DIR)`
      : `in ${resolve(cwd)} or a folder above it (none has a ${DEFAULT_DATA_DIR.replace(/^\.\//, "")} of a running server)`;
  return `no emulator found ${where}: start one with \`${env.command} serve\`, or name one with --target URL (or EXT_BASE_URL)`;
}

/**
 * Sends the server a fresh challenge, with no credential, and checks its answer against the token in
 * server.json. Throws UnprovenServerError on a missing or wrong proof, or when the server does not answer.
 */
export async function verifyServer(dataDir: string, info: ServerFile, timeoutMs?: number): Promise<FoundServer> {
  const unproven = (why: string) => new UnprovenServerError(info.url, dataDir, why);
  // A name could resolve to another listener than the one that wrote the file (issue: localhost → ::1).
  if (isIP(new URL(info.url).hostname.replace(/^\[|\]$/g, "")) === 0)
    throw unproven(
      "its server.json names a host, not an IP address (written by an older ext? restart that `ext serve`)",
    );
  if (!info.adminToken)
    throw unproven("its server.json holds no admin token (written by an older ext? restart that `ext serve`)");
  // Proven for the address it wrote, and again on every new connection for as long as the command runs.
  const endpoints = endpointsFromAnyUrl(info.url, {
    proveWith: info.adminToken,
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  });
  const why = await endpoints.transport.prove();
  if (why) throw unproven(why);
  return {
    endpoints: { ...endpoints, unreachableHint: `has the \`ext serve\` of ${dataDir} stopped?` },
    adminToken: info.adminToken,
    dataDir,
  };
}

/**
 * A server named by URL (--target, EXT_BASE_URL, EXT_LOCAL_URL) while the CLI holds an admin token: before
 * anything is sent, it must answer the same challenge for the address it was named by. A listener that took
 * an emulator's old port cannot, so the token, the API key and secret values never reach it.
 */
export class UnprovenTargetError extends Error {
  override name = "UnprovenTargetError";
  constructor(url: string, why: string) {
    super(
      `the server at ${url} did not prove it is the emulator this admin token belongs to (${why}); nothing was sent to it. ` +
        "Check the address: `ext serve` prints its current one. A server proves itself only at the address it listens on: one reached through a port mapping, a proxy or a container's service name is sent the token unchallenged with EXT_TRUST_TARGET=1",
    );
  }
}

/** Throws UnprovenTargetError unless the server at `endpoints.root` proves the token its transport holds. */
export async function verifyNamedServer(endpoints: Endpoints): Promise<void> {
  const why = await endpoints.transport.prove();
  if (why) throw new UnprovenTargetError(endpoints.root, why);
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    // ESRCH: gone. EPERM: another user's process, so not the server that wrote this user's file.
    return false;
  }
}
