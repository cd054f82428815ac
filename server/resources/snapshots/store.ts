/**
 * In-process snapshots of an emulator's state: every row, every bundle file and the clock, taken and put back
 * in a few milliseconds, so a test suite can build an expensive starting state once and return to it before
 * each test. Rows are copied into memory (one SELECT per table); bundle files are hard-linked into the
 * snapshot's folder, never copied (a blob is written once and only ever removed, so a link is a copy that
 * costs nothing). A restore empties the tables (one cascading DELETE) and inserts the rows back in one
 * transaction, then makes the blob folder hold exactly the snapshot's files again.
 */
import type { Statement } from "bun:sqlite";
import { copyFileSync, linkSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { getTableName } from "drizzle-orm";
import type { ClockSetting, EmulatorClock } from "../../base/clock";
import { newId } from "../../base/ids";
import type { BlobStore } from "../../blobs/blob-store";
import type { Db } from "../../db/database";
import { TABLES_PARENTS_FIRST } from "../../db/schema";
import { errors } from "../../errors/catalog";
import type { DashboardKeyPin } from "../accounts/dashboard-key";

/** How many snapshots one emulator keeps at a time. */
export const SNAPSHOTS_MAX = 32;
/**
 * How many bytes of rows all of one emulator's snapshots hold in memory together (bundle files are links,
 * not copies): a count alone let 32 snapshots of a 40 MB state take 1.3 GB.
 */
export const SNAPSHOT_BYTES_MAX = 256 * 1024 * 1024;

/** Every table, parents before children (the order the rows go back in): the schema's list. */
const TABLES = TABLES_PARENTS_FIRST.map((table) => getTableName(table));

type Value = string | number | bigint | boolean | Uint8Array | null;

interface Snapshot {
  rows: Value[][][];
  /** What its rows hold, as rowBytes counts it. */
  bytes: number;
  blobIds: Set<string>;
  clock: ClockSetting;
  dir: string;
  dashboardKeys: DashboardKeyPin | null;
}

export interface SnapshotStore {
  /** Takes a snapshot; returns its id. */
  take(): string;
  /** Puts rows, bundle files and clock back as they were when `id` was taken. */
  restore(id: string): void;
  remove(id: string): void;
  /** Every snapshot id, oldest first. */
  list(): string[];
  /** Drops every snapshot and its folder (on close). */
  clear(): void;
}

export function createSnapshotStore(deps: {
  db: Db;
  blobs: BlobStore;
  clock: EmulatorClock;
  /** SNAPSHOT_BYTES_MAX unless a test asks for less. */
  bytesMax?: number;
  /** The dashboard keys' service: a restore after a reset never brings back a key no start could recognise. */
  dashboardKeys?: () => { pin(): DashboardKeyPin; afterRestore(pin: DashboardKeyPin): void };
}): SnapshotStore {
  const { db, blobs, clock } = deps;
  const bytesMax = deps.bytesMax ?? SNAPSHOT_BYTES_MAX;
  let held = 0;
  // Copying every table whole is what drizzle's builder does not say: plain SELECT * / INSERT per table.
  const client = db.$client;
  // Whoever opens the blob store holds the data directory's lock: folders left here are of a process that is gone.
  const root = join(blobs.root, "snapshots");
  rmSync(root, { recursive: true, force: true });
  const snapshots = new Map<string, Snapshot>();
  let prepared: { selects: Statement[]; inserts: Statement[]; restoreRows: (rows: Value[][][]) => void } | null = null;

  function statements() {
    if (prepared) return prepared;
    const selects = TABLES.map((t) => client.prepare(`SELECT * FROM ${t}`));
    const inserts = TABLES.map((t, i) => {
      const columns = selects[i]!.columnNames;
      return client.prepare(`INSERT INTO ${t} (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`);
    });
    const deleteAll = client.prepare("DELETE FROM accounts");
    // Through db.writer: an IMMEDIATE transaction that moves the read caches' generation.
    const restoreRows = db.writer((rows: Value[][][]) => {
      deleteAll.run();
      rows.forEach((tableRows, i) => {
        const insert = inserts[i]!;
        for (const row of tableRows) insert.run(...row);
      });
    });
    prepared = { selects, inserts, restoreRows };
    return prepared;
  }

  function find(id: string): Snapshot {
    const snapshot = snapshots.get(id);
    if (!snapshot) throw errors.snapshotNotFound(id);
    return snapshot;
  }

  return {
    take() {
      if (snapshots.size >= SNAPSHOTS_MAX) throw errors.snapshotsFull(SNAPSHOTS_MAX);
      const { selects } = statements();
      const id = newId("snap", clock.nowMs());
      // The dashboard keys' note in the same read as the rows: one picture.
      const { rows, dashboardKeys } = db.read(() => ({
        rows: selects.map((s) => s.values() as Value[][]),
        dashboardKeys: deps.dashboardKeys?.().pin() ?? null,
      }));
      // Judged on the rows read (one state's worth, dropped again on refusal), before anything is kept.
      const bytes = rowBytes(rows);
      if (held + bytes > bytesMax) throw errors.snapshotsTooLarge(bytes, held, bytesMax);
      const dir = join(root, id);
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const blobIds = new Set(blobs.list());
      for (const blobId of blobIds) linkOrCopy(blobs.pathOf(blobId), join(dir, blobId));
      snapshots.set(id, { rows, bytes, blobIds, clock: clock.setting(), dir, dashboardKeys });
      held += bytes;
      return id;
    },
    restore(id) {
      const snapshot = find(id);
      statements().restoreRows(snapshot.rows);
      if (snapshot.dashboardKeys) deps.dashboardKeys?.().afterRestore(snapshot.dashboardKeys);
      for (const blobId of blobs.list()) if (!snapshot.blobIds.has(blobId)) blobs.delete(blobId);
      const present = new Set(blobs.list());
      for (const blobId of snapshot.blobIds)
        if (!present.has(blobId)) linkOrCopy(join(snapshot.dir, blobId), blobs.pathOf(blobId));
      clock.restoreSetting(snapshot.clock);
    },
    remove(id) {
      const snapshot = find(id);
      snapshots.delete(id);
      held -= snapshot.bytes;
      rmSync(snapshot.dir, { recursive: true, force: true });
    },
    list: () => [...snapshots.keys()],
    clear() {
      snapshots.clear();
      held = 0;
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** About what rows take in memory: text by its length, blobs by their bytes, 8 bytes a number, 16 a row. */
function rowBytes(tables: Value[][][]): number {
  let bytes = 0;
  for (const rows of tables)
    for (const row of rows) {
      bytes += 16;
      for (const v of row) bytes += typeof v === "string" ? v.length : v instanceof Uint8Array ? v.byteLength : 8;
    }
  return bytes;
}

function linkOrCopy(from: string, to: string): void {
  try {
    linkSync(from, to);
  } catch {
    copyFileSync(from, to);
  }
}
