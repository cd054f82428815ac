/**
 * A number that moves whenever the database may have changed, for caches of what was read from it (the
 * serialized extension list, the principal behind an API key). Two SQLite counters feed it:
 * `total_changes()` counts this connection's writes and costs no read transaction, so it is read on every
 * call; `PRAGMA data_version` moves on commits by other connections (another process such as
 * `ext seed --data-dir`) but opens a read transaction (shared-memory locks on a WAL file), so it is read at
 * most once per request, by `refresh()` when the request authenticates (src/auth/service.ts), before any
 * cache is consulted. A request therefore sees every commit made before it arrived, and every write of this
 * process at any time.
 *
 * `refresh()` skips even that read when no other connection can have committed: an in-memory database has no
 * other connection at all, and for a file the WAL-index header (the first 48 bytes of the `-shm` file, whose
 * layout is SQLite's documented WAL format: a change counter, the last frame, salts and checksums that every
 * commit rewrites) is compared with the copy seen last, with one plain read and no lock. Any difference, a
 * torn read included, leads to the real `data_version` read, so the comparison can only save work, never
 * hide a commit: a writer rewrites that header as the last step of its commit.
 */
import { closeSync, openSync, readSync } from "node:fs";
import type { Db } from "./database";

export interface DbGeneration {
  /** Re-reads the other connections' counter when it may have moved: once per request, before any cache is consulted. */
  refresh(): void;
  /** The current generation; equal values mean nothing was written in between. */
  current(): number;
  /** Releases the file the WAL-index header is read from (with the database's own close). */
  close(): void;
}

const WAL_INDEX_HEADER_BYTES = 48;

/** True when another connection may have committed since the last call; null when no other connection can exist. */
function otherCommitsProbe(filename: string): { changed(): boolean; close(): void } | null {
  if (filename === "" || filename === ":memory:") return null;
  let fd: number | null = null;
  try {
    fd = openSync(`${filename}-shm`, "r");
  } catch {
    // No shared-memory file to read (not in WAL mode, or a platform that keeps it elsewhere): always ask SQLite.
    return { changed: () => true, close() {} };
  }
  const seen = Buffer.alloc(WAL_INDEX_HEADER_BYTES);
  const now = Buffer.alloc(WAL_INDEX_HEADER_BYTES);
  return {
    changed() {
      const n = readSync(fd!, now, 0, WAL_INDEX_HEADER_BYTES, 0);
      if (n === WAL_INDEX_HEADER_BYTES && now.equals(seen)) return false;
      now.copy(seen);
      return true;
    },
    close() {
      if (fd !== null) closeSync(fd);
      fd = null;
    },
  };
}

export function createDbGeneration(db: Db): DbGeneration {
  const changesStmt = db.$client.prepare<[number], []>("SELECT total_changes()");
  const dataVersionStmt = db.$client.prepare<[number], []>("PRAGMA data_version");
  const probe = otherCommitsProbe(db.$client.filename);
  let generation = 0;
  let changes = -1;
  let dataVersion = -1;
  const readDataVersion = () => {
    const v = dataVersionStmt.values()[0]![0] as number;
    if (v !== dataVersion) {
      dataVersion = v;
      generation++;
    }
  };
  // The header first, then the counter: a commit between the two moves the header again, so it is not missed.
  probe?.changed();
  readDataVersion();
  return {
    refresh() {
      if (probe?.changed()) readDataVersion();
    },
    current() {
      const c = changesStmt.values()[0]![0] as number;
      if (c !== changes) {
        changes = c;
        generation++;
      }
      return generation;
    },
    close() {
      probe?.close();
    },
  };
}
