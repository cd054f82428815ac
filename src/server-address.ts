/**
 * Where the server holding a data directory listens: `<dataDir>/ext.server.json`, `{adminUrl, pid}`, written
 * once it listens and removed when it stops. The server is the only writer of its database (the read caches
 * rely on it: src/db/generation.ts), so `ext seed --data-dir` beside it sends the fixture here instead of
 * opening the file. Holds no secret: a control plane that needs a token still needs it.
 */
import { randomBytes } from "node:crypto";
import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const SERVER_ADDRESS_FILE = "ext.server.json";

export interface ServerAddress {
  adminUrl: string;
  pid: number;
}

/** Written whole under a fresh name, then renamed: a reader never sees half of it. Returns its remover. */
export function publishServerAddress(dataDir: string, address: ServerAddress): () => void {
  const file = join(dataDir, SERVER_ADDRESS_FILE);
  const text = `${JSON.stringify(address)}\n`;
  const temp = `${file}.${randomBytes(6).toString("hex")}.tmp`;
  writeFileSync(temp, text, { mode: 0o600, flag: "wx" });
  renameSync(temp, file);
  return () => {
    // Only our own: a server started since has written its address there.
    try {
      if (readFileSync(file, "utf8") === text) rmSync(file, { force: true });
    } catch {}
  };
}

/** The address the data directory's server published, or null (none, or not one we can use). */
export function readServerAddress(dataDir: string): ServerAddress | null {
  try {
    const value = JSON.parse(readFileSync(join(dataDir, SERVER_ADDRESS_FILE), "utf8")) as Partial<ServerAddress>;
    if (typeof value.adminUrl !== "string" || !/^https?:\/\//.test(value.adminUrl)) return null;
    if (!Number.isSafeInteger(value.pid) || (value.pid as number) <= 0) return null;
    return { adminUrl: value.adminUrl, pid: value.pid as number };
  } catch {
    return null;
  }
}
