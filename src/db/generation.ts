/**
 * A number that moves whenever the database may have changed, for caches of what was read from it (the
 * serialized extension list, the principal behind an API key).
 *
 * On a database file (WAL mode) every commit, by this connection or by another process such as
 * `ext seed --data-dir`, rewrites the WAL-index header: the first 48 bytes of the `-shm` file, whose layout
 * is SQLite's documented WAL format (a change counter bumped by every write transaction, the last frame,
 * salts and checksums). The header is mapped into memory, so comparing it with the copy seen last is a plain
 * memory read: no statement, no system call, no lock. Any difference, a torn read included, moves the
 * generation, so the comparison can only cost a cache miss, never hide a commit: a writer rewrites the header
 * as the last step of its commit. Where the file cannot be mapped, the same 48 bytes are read with one
 * `pread`.
 *
 * An in-memory database has no `-shm` file and no other connection: there `total_changes()` (this
 * connection's writes) moves the generation. Inside a write transaction nothing is committed yet and the
 * header has not moved, so a read there never matches a cached value, nor leaves one that a later read matches.
 */
import { closeSync, openSync, readSync } from "node:fs";
import type { Db } from "./database";

export interface DbGeneration {
  /** The current generation; equal values mean nothing was written in between. */
  current(): number;
  /** Releases the `-shm` file (with the database's own close); the generation stops being read. */
  close(): void;
}

const WAL_INDEX_HEADER_BYTES = 48;

interface HeaderSource {
  /** The header as it is now (a live view, or a buffer refilled by this call). */
  read(): Uint8Array;
  close(): void;
}

/** The WAL-index header of `filename`, mapped (or read) from its `-shm` file; null when there is none. */
function walIndexHeader(filename: string): HeaderSource | null {
  if (filename === "" || filename === ":memory:") return null;
  const shm = `${filename}-shm`;
  try {
    // Mapped shared, first 48 bytes only. SQLite never shrinks the -shm file of a database it holds open,
    // and this connection holds it open until close(), after which the view is no longer read.
    const view = Bun.mmap(shm, { shared: true, size: WAL_INDEX_HEADER_BYTES });
    if (view.byteLength === WAL_INDEX_HEADER_BYTES) return { read: () => view, close() {} };
  } catch {
    // No mapping on this platform or file system: read it instead.
  }
  let fd: number | null;
  try {
    fd = openSync(shm, "r");
  } catch {
    return null;
  }
  const buffer = Buffer.alloc(WAL_INDEX_HEADER_BYTES);
  return {
    read() {
      // A short read leaves zeroes, which differ from any live header: a miss, never a hidden commit.
      if (readSync(fd!, buffer, 0, WAL_INDEX_HEADER_BYTES, 0) !== WAL_INDEX_HEADER_BYTES) buffer.fill(0);
      return buffer;
    },
    close() {
      if (fd !== null) closeSync(fd);
      fd = null;
    },
  };
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  for (let i = 0; i < WAL_INDEX_HEADER_BYTES; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function createDbGeneration(db: Db): DbGeneration {
  const sqlite = db.$client;
  let generation = 0;
  let closed = false;
  // A read inside a write transaction (or after close) gets a number no other read ever gets, and never one
  // of the positive generations: what it cached can never be served later, whether the transaction commits or not.
  let uncommitted = 0;
  const unique = () => --uncommitted;
  const header = walIndexHeader(sqlite.filename);
  if (header) {
    const seen = new Uint8Array(WAL_INDEX_HEADER_BYTES);
    return {
      current() {
        if (closed || sqlite.inTransaction) return unique();
        const now = header.read();
        if (!sameBytes(now, seen)) {
          seen.set(now);
          generation++;
        }
        return generation;
      },
      close() {
        closed = true;
        header.close();
      },
    };
  }
  // No -shm file: an in-memory database (or a file not in WAL mode). This connection's own writes are
  // counted; `data_version` adds other connections' commits for a file.
  const changesStmt = sqlite.prepare<[number], []>("SELECT total_changes()");
  const dataVersionStmt = sqlite.filename === "" || sqlite.filename === ":memory:" ? null : sqlite.prepare<[number], []>("PRAGMA data_version");
  let seenChanges = -1;
  let seenVersion = -1;
  return {
    current() {
      if (closed || sqlite.inTransaction) return unique();
      const changes = changesStmt.values()[0]![0] as number;
      const version = dataVersionStmt ? (dataVersionStmt.values()[0]![0] as number) : 0;
      if (changes !== seenChanges || version !== seenVersion) {
        seenChanges = changes;
        seenVersion = version;
        generation++;
      }
      return generation;
    },
    close() {
      closed = true;
    },
  };
}
