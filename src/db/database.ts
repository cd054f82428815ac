import { Database } from "bun:sqlite";
import { type BunSQLiteDatabase, drizzle } from "drizzle-orm/bun-sqlite";
import { applyMigrations } from "./migrations";
import * as schema from "./schema";

export type Db = BunSQLiteDatabase<typeof schema> & { $client: Database };
/** The handle inside `db.transaction((tx) => …)`: keep those callbacks synchronous (stack notes). */
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

/** Opens (creating if needed) the SQLite file, or an in-memory database for ":memory:", and migrates it. */
export function openDatabase(filename: string): Db {
  const sqlite = new Database(filename, { create: true, strict: true });
  sqlite.exec("PRAGMA journal_mode = WAL;");
  sqlite.exec("PRAGMA busy_timeout = 5000;");
  sqlite.exec("PRAGMA foreign_keys = ON;");
  sqlite.exec("PRAGMA synchronous = NORMAL;");
  // Before drizzle wraps the connection: applied hashes are recorded in __drizzle_migrations, as drizzle does.
  applyMigrations(sqlite);
  return drizzle({ client: sqlite, schema }) as Db;
}

export { schema };
