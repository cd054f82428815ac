/**
 * `server.json` in the data directory: where the `ext serve` that owns the directory listens, so a command run
 * in the same folder finds it on any port, and the control plane's admin token, which the owner's tools send
 * (and check the server's proof with, common/server-proof.ts). Private to the user (0600). Written under a fresh name and renamed into place, so a reader
 * never sees half of it and a link planted at the final name is replaced, not followed; removed on stop.
 */
import { readFileSync, rmSync, type Stats } from "node:fs";
import { join, resolve } from "node:path";
import { writePrivateFile } from "./files/private-file";
import { readJsonFile, STATE_FILE_MAX_BYTES } from "./json/json-reader";

export const SERVER_FILE = "server.json";

export interface ServerFile {
  /** http://host:port */
  url: string;
  pid: number;
  /** The control plane's token (absent in a file an older server wrote). */
  adminToken?: string;
}

export function serverFilePath(dataDir: string): string {
  return join(resolve(dataDir), SERVER_FILE);
}

/** Returns what was written, so that removal can tell the file is still this server's. */
export function writeServerFile(dataDir: string, info: ServerFile): { path: string; text: string } {
  const path = serverFilePath(dataDir);
  const text = `${JSON.stringify({ url: info.url, pid: info.pid, adminToken: info.adminToken })}\n`;
  // It describes this process: a crash that could lose it ends the process too (no flush to disk).
  writePrivateFile(path, text, { durable: false });
  return { path, text };
}

/** Removed unless another server has written its own there since. */
export function removeServerFile({ path, text }: { path: string; text: string }): void {
  try {
    if (readFileSync(path, "utf8") === text) rmSync(path, { force: true });
  } catch {
    // Already gone: nothing of ours to remove.
  }
}

/** This user's own file that nobody else can write. */
const ownPrivateFile = (stat: Stats) => (stat.mode & 0o022) === 0 && (!process.getuid || stat.uid === process.getuid());

/**
 * What the data directory's server.json says, if it is this user's own regular file that nobody else can
 * write (not a link) and names an http URL and a pid; null otherwise. Whether that process still runs and
 * answers is the reader's to check.
 */
export function readServerFile(dataDir: string): ServerFile | null {
  const path = serverFilePath(dataDir);
  let info: { url?: unknown; pid?: unknown; adminToken?: unknown };
  try {
    info = readJsonFile(path, STATE_FILE_MAX_BYTES, ownPrivateFile) as typeof info;
    if (info === null || typeof info !== "object") return null;
  } catch {
    return null;
  }
  if (typeof info.url !== "string" || !Number.isSafeInteger(info.pid) || (info.pid as number) <= 0) return null;
  try {
    const url = new URL(info.url);
    if (url.protocol !== "http:") return null;
    const found: ServerFile = { url: url.origin, pid: info.pid as number };
    if (typeof info.adminToken === "string" && info.adminToken !== "") found.adminToken = info.adminToken;
    return found;
  } catch {
    return null;
  }
}
