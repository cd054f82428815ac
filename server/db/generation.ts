/**
 * A number that moves whenever the database may have changed, for caches of what was read from it (the
 * serialized extension list, the principal behind an API key).
 *
 * The server is the only writer of its database: the data directory's lock admits one server, and
 * `ext seed --data-dir` beside it goes through that server's control plane (tools/cli/commands/seed.ts). So every
 * commit is one of ours, made through `db.write` (server/db/database.ts), which bumps the generation once the
 * transaction has ended: a plain counter, no statement, no file. Inside a write transaction nothing is
 * committed yet, so a read there gets a number no other read ever gets: what it caches is never served later,
 * whether the transaction commits or not.
 */
import type { Database } from "bun:sqlite";

export interface DbGeneration {
  /** The current generation; equal values mean nothing was committed in between. */
  current(): number;
}

export interface DbGenerationCounter extends DbGeneration {
  /** Called after every write transaction (committed or rolled back: a spare bump costs one cache miss). */
  bump(): void;
}

export function createDbGeneration(sqlite: Database): DbGenerationCounter {
  let generation = 0;
  let uncommitted = 0;
  return {
    current() {
      if (sqlite.inTransaction) return --uncommitted;
      return generation;
    },
    bump() {
      generation++;
    },
  };
}
