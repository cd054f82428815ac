/**
 * A number that moves whenever the database may have changed, for caches of what was read from it (the
 * serialized extension list, the principal behind an API key). Two SQLite counters feed it:
 * `total_changes()` counts this connection's writes and costs no read transaction, so it is read on every
 * call; `PRAGMA data_version` moves on commits by other connections (another process such as
 * `ext seed --data-dir`) but opens a read transaction (shared-memory locks on a WAL file), so it is read once
 * per request, by `refresh()` when the request authenticates (src/auth/service.ts), before any cache is
 * consulted. A request therefore sees every commit made before it arrived, and every write of this process
 * at any time.
 */
import type { Db } from "./database";

export interface DbGeneration {
  /** Re-reads the other connections' counter: once per request, before any cache is consulted. */
  refresh(): void;
  /** The current generation; equal values mean nothing was written in between. */
  current(): number;
}

export function createDbGeneration(db: Db): DbGeneration {
  const changesStmt = db.$client.prepare<[number], []>("SELECT total_changes()");
  const dataVersionStmt = db.$client.prepare<[number], []>("PRAGMA data_version");
  let generation = 0;
  let changes = -1;
  let dataVersion = -1;
  const refresh = () => {
    const v = dataVersionStmt.values()[0]![0] as number;
    if (v !== dataVersion) {
      dataVersion = v;
      generation++;
    }
  };
  refresh();
  return {
    refresh,
    current() {
      const c = changesStmt.values()[0]![0] as number;
      if (c !== changes) {
        changes = c;
        generation++;
      }
      return generation;
    },
  };
}
