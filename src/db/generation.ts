/**
 * A number that moves whenever the database may have changed, for caches of what was read from it (the
 * serialized extension list, the principal behind an API key).
 *
 * On a database file (WAL mode) every commit, by this connection or by another process such as
 * `ext seed --data-dir`, rewrites the WAL-index header: the first 48 bytes of the `-shm` file, whose layout
 * is SQLite's documented WAL format (a version, a change counter bumped by every write transaction, the last
 * frame, salts and checksums). The header is mapped into memory, so comparing it with the copy seen last is a
 * plain memory read: no statement, no lock. Any difference, a torn read included, moves the generation, so the
 * comparison can only cost a cache miss, never hide a commit: a writer rewrites the header as the last step of
 * its commit. Where the file cannot be mapped, the same 48 bytes are read with one `pread`.
 *
 * The `-shm` file is mapped (or opened) before SQLite opens the database, and our descriptor is closed only
 * after SQLite has closed it: on POSIX systems closing any descriptor of a file drops every lock the process
 * holds on it, SQLite's included, and without its lock on the `-shm` file another process would take the
 * database for unused and rebuild that file under us.
 *
 * An in-memory database has no `-shm` file and no other connection: there `total_changes()` (this
 * connection's writes) moves the generation; so it does, with `PRAGMA data_version`, for a file whose header
 * could not be read. Inside a write transaction nothing is committed yet and the header has not moved, so a
 * read there never matches a cached value, nor leaves one that a later read matches.
 */
import { closeSync, existsSync, openSync, readSync, writeSync } from "node:fs";
import type { Db } from "./database";

export interface DbGeneration {
  /** The current generation; equal values mean nothing was written in between. */
  current(): number;
  /** Stops reading the header and releases the `-shm` file: call it after the database is closed. */
  close(): void;
}

const WAL_INDEX_HEADER_BYTES = 48;
/** The WAL-index header's first field (iVersion), as SQLite writes it in the machine's byte order. */
const WAL_INDEX_VERSION = 3007000;

/** The WAL-index header of a database file, read live. */
export interface WalIndexHeader {
  /** The header as it is now (a live view, or a buffer refilled by this call). */
  read(): Uint8Array;
  /** Releases the file; only once the database is closed (see above). */
  close(): void;
}

/**
 * The `-shm` file of `dbFile`, mapped or opened for reading: call it BEFORE the database is opened (see above).
 * Creates the file when it does not exist yet (SQLite, opening the database first, initialises it); null when
 * there is no file to read (an in-memory database, a file that cannot be created).
 */
export function openWalIndexHeader(dbFile: string): WalIndexHeader | null {
  if (dbFile === "" || dbFile === ":memory:") return null;
  const shm = `${dbFile}-shm`;
  try {
    // A file to map must not be empty; SQLite, the first to open the database, truncates and rebuilds it.
    if (!existsSync(shm)) {
      const fd = openSync(shm, "a", 0o600);
      try {
        writeSync(fd, Buffer.alloc(WAL_INDEX_HEADER_BYTES));
      } finally {
        closeSync(fd);
      }
    }
  } catch {
    return null;
  }
  try {
    // Shared, one page. SQLite shrinks the file to 3 bytes at most (when it rebuilds it), never to 0, so the
    // first page stays mapped.
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

/** Whether `header` is the live WAL-index of `db`: WAL mode, and a header SQLite has initialised. */
function isLiveIndex(db: Db, header: WalIndexHeader): boolean {
  const mode = db.$client.prepare<{ journal_mode: string }, []>("PRAGMA journal_mode").get()?.journal_mode;
  if (mode?.toLowerCase() !== "wal") return false;
  // Any read opens a read transaction, which makes SQLite initialise the header if it has not yet.
  db.$client.prepare("SELECT COUNT(*) FROM sqlite_master").get();
  const bytes = header.read();
  const version = new DataView(bytes.buffer, bytes.byteOffset, 4);
  return version.getUint32(0, true) === WAL_INDEX_VERSION || version.getUint32(0, false) === WAL_INDEX_VERSION;
}

/** True when the database may have changed since the last call (the first call included). */
type ChangeProbe = () => boolean;

/** The live header compared with the copy seen last. */
function headerProbe(header: WalIndexHeader): ChangeProbe {
  const seen = new Uint8Array(WAL_INDEX_HEADER_BYTES);
  return () => {
    const now = header.read();
    if (sameBytes(now, seen)) return false;
    seen.set(now);
    return true;
  };
}

/**
 * No live header: an in-memory database (no other connection), or a file whose header cannot be read. This
 * connection's own writes are counted; `data_version` adds other connections' commits for a file.
 */
function counterProbe(db: Db): ChangeProbe {
  const sqlite = db.$client;
  const changesStmt = sqlite.prepare<[number], []>("SELECT total_changes()");
  const dataVersionStmt =
    sqlite.filename === "" || sqlite.filename === ":memory:"
      ? null
      : sqlite.prepare<[number], []>("PRAGMA data_version");
  let seenChanges = -1;
  let seenVersion = -1;
  return () => {
    const changes = changesStmt.values()[0]![0] as number;
    const version = dataVersionStmt ? (dataVersionStmt.values()[0]![0] as number) : 0;
    if (changes === seenChanges && version === seenVersion) return false;
    seenChanges = changes;
    seenVersion = version;
    return true;
  };
}

/** `header`: from openWalIndexHeader, called before the database was opened; its ownership passes here. */
export function createDbGeneration(db: Db, header: WalIndexHeader | null = null): DbGeneration {
  const sqlite = db.$client;
  const changed = header && isLiveIndex(db, header) ? headerProbe(header) : counterProbe(db);
  let generation = 0;
  let closed = false;
  // A read inside a write transaction (or after close) gets a number no other read ever gets, and never one
  // of the positive generations: what it cached can never be served later, whether the transaction commits or not.
  let uncommitted = 0;
  return {
    current() {
      if (closed || sqlite.inTransaction) return --uncommitted;
      if (changed()) generation++;
      return generation;
    },
    close() {
      closed = true;
      header?.close();
    },
  };
}
