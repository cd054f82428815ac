/**
 * The emulator's one SQLite connection, wrapped by drizzle.
 *
 * Data access goes through drizzle: its query builder, with `.prepare()`d statements made once, in the closure
 * of the factory that owns them (a service, a table's writer), and `sql` fragments inside a query for what the
 * builder does not say (a correlated count). Every row is inserted by its table's one writer
 * (test/db/one-writer.test.ts). Raw SQL on `$client` is kept to what drizzle does not model: PRAGMAs and the
 * migration runner here, the data directory's lock file (server/data-dir/lock.ts), which is not this database, and
 * snapshots (server/resources/snapshots/store.ts), which copy every row of every table as stored and put them back.
 * test/db/data-access.test.ts holds the tree to it.
 *
 * Every write goes through `db.write` / `db.writer`: one place that begins the transaction IMMEDIATE (a
 * deferred one that reads first cannot take the write lock once another connection has committed: SQLITE_BUSY,
 * which busy_timeout does not retry) and bumps the generation the read caches compare (server/db/generation.ts),
 * and, unless the writer is marked as leaving keys and accounts alone, the one the memory of authenticated keys
 * compares.
 * A read that needs one snapshot across statements uses `db.read`. Callbacks stay synchronous (stack notes):
 * bun:sqlite commits at the first `await`.
 */
import { Database } from "bun:sqlite";
import { sql } from "drizzle-orm";
import { type BunSQLiteDatabase, drizzle } from "drizzle-orm/bun-sqlite";
import { createDbGeneration, type DbGeneration } from "./generation";
import { applyMigrations } from "./migrations";
import * as schema from "./schema";

interface DbWrites {
  /** This open made the database (it held no page yet): nothing in it comes from an earlier run. */
  created: boolean;
  /** Moves after every write transaction; what the read caches compare. */
  generation: DbGeneration;
  /**
   * Moves after every write transaction that may have changed an API key or an account (all of them but the
   * writers made with `credentialsUntouched`): what the memory of authenticated keys compares.
   */
  credentialsGeneration: DbGeneration;
  /** Runs `fn` in one read transaction: a consistent picture across its statements. Never write in it. */
  read<R>(fn: () => R): R;
  /** Runs `fn` in an IMMEDIATE write transaction (a savepoint when one is already open) and returns its result. */
  write<R>(fn: (tx: Db) => R): R;
  /** `write` made once for a hot path: the transaction function is built here, not on every call. */
  writer<A extends unknown[], R>(fn: (...args: A) => R, options?: WriterOptions): (...args: A) => R;
}

export interface WriterOptions {
  /**
   * The writer's transaction changes no API key and no account row, not even through a cascade, so keys
   * already authenticated stay valid across it. Safe by default: a writer without it, or any other write in
   * the same transaction, moves the credentials generation too. Only the writers listed in
   * test/db/credentials-generation.test.ts may say it, each checked there to leave those tables as they were.
   */
  credentialsUntouched?: true;
}

export type Db = BunSQLiteDatabase & { $client: Database } & DbWrites;
/** The handle a write callback gets: the same connection, so the same `Db`. */
export type Tx = Db;

/** Opens (creating if needed) the SQLite file, or an in-memory database for ":memory:", and migrates it. */
export function openDatabase(filename: string): Db {
  const sqlite = new Database(filename, { create: true, strict: true });
  sqlite.exec("PRAGMA busy_timeout = 5000;");
  // A new database (not a page yet) holds nothing to lose while it is made: its switch to WAL and its tables
  // are not flushed to the disk step by step (eight flushes, most of a first start's wait on a busy disk). From
  // the first commit after, it is as durable as any: a checkpoint flushes the log before the database file.
  const isNew = sqlite.query<{ page_count: number }, []>("PRAGMA page_count").get()?.page_count === 0;
  if (isNew) sqlite.exec("PRAGMA synchronous = OFF;");
  sqlite.exec("PRAGMA journal_mode = WAL;");
  sqlite.exec("PRAGMA foreign_keys = ON;");
  // Before drizzle wraps the connection: applied hashes are recorded in __drizzle_migrations, as drizzle does.
  applyMigrations(sqlite);
  sqlite.exec("PRAGMA synchronous = NORMAL;");
  const generation = createDbGeneration(sqlite);
  const credentialsGeneration = createDbGeneration(sqlite);
  // Whether the open transaction ran a write that may change credentials (one not marked otherwise).
  let credentialsTouched = false;
  const writer = <A extends unknown[], R>(fn: (...args: A) => R, options: WriterOptions = {}): ((...args: A) => R) => {
    const transaction = sqlite.transaction(fn);
    const touchesCredentials = options.credentialsUntouched !== true;
    return (...args) => {
      if (touchesCredentials) credentialsTouched = true;
      try {
        return transaction.immediate(...args);
      } finally {
        // Only the outermost transaction's end is a commit (or a rollback) other readers could see.
        if (!sqlite.inTransaction) {
          generation.bump();
          if (credentialsTouched) credentialsGeneration.bump();
          credentialsTouched = false;
        }
      }
    };
  };
  // Without the schema: drizzle would build the relational query API's configuration from it, which nothing uses.
  const db = drizzle({ client: sqlite }) as BunSQLiteDatabase & { $client: Database };
  const writes: DbWrites = {
    created: isNew,
    generation,
    credentialsGeneration,
    read: (fn) => sqlite.transaction(fn).deferred(),
    write: (fn) => writer(() => fn(db as Db))(),
    writer,
  };
  return Object.assign(db, writes);
}

/** A named parameter of a prepared statement where drizzle's types want an SQL value (an UPDATE's SET). */
export const param = (name: string) => sql`${sql.placeholder(name)}`;

export { schema };
