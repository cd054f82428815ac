/**
 * What a server wrote to its --ready-file (server/start/ready-file.ts: its addresses, pid, token), once the file
 * is there. The server writes it aside and renames it, so it is read whole. Throws, naming the file, when
 * `ended()` says the process ended first, or at waitFor's deadline.
 */
import { existsSync, readFileSync } from "node:fs";
import { waitFor } from "./wait-for";

export async function readReadyFile<T>(path: string, ended: () => boolean): Promise<T> {
  await waitFor(() => existsSync(path) || ended(), `the ready file ${path}`);
  if (!existsSync(path)) throw new Error(`the server ended before it wrote its ready file ${path}`);
  return JSON.parse(readFileSync(path, "utf8")) as T;
}
