/** Rules of an extension's versions that every write of versions (submission, review, fixtures) runs. */
import { and, desc, eq, ne, sql } from "drizzle-orm";
import type { Db, Tx } from "../db/database";
import { versions } from "../db/schema";

/** True when the extension already has a version of this label (archived ones count: labels are never reused). */
export function labelTaken(tx: Pick<Db, "select">, extensionId: string, label: string): boolean {
  return (
    tx
      .select({ id: versions.id })
      .from(versions)
      .where(and(eq(versions.extensionId, extensionId), eq(versions.version, label)))
      .get() !== undefined
  );
}

/** The sequence number the extension's next version gets: one past its highest. */
export function nextSeq(tx: Pick<Db, "select">, extensionId: string): number {
  return (
    (tx
      .select({ s: sql<number>`COALESCE(MAX(${versions.seq}), 0)` })
      .from(versions)
      .where(eq(versions.extensionId, extensionId))
      .get()?.s ?? 0) + 1
  );
}

/**
 * The version cap, its one home: archives the oldest versions that are not current (nor the one just added) until at most `max`
 * remain. A submission and a fixture's versions alike run it after their inserts.
 */
export function enforceVersionCap(
  tx: Tx,
  extensionId: string,
  keepId: string,
  currentId: string | null,
  max: number,
  now: string,
): void {
  const live =
    tx
      .select({ n: sql<number>`COUNT(*)` })
      .from(versions)
      .where(and(eq(versions.extensionId, extensionId), ne(versions.status, "archived")))
      .get()?.n ?? 0;
  const excess = live - max;
  if (excess <= 0) return;
  const oldest = tx
    .select({ id: versions.id })
    .from(versions)
    .where(
      and(
        eq(versions.extensionId, extensionId),
        ne(versions.status, "archived"),
        ne(versions.id, keepId),
        currentId ? ne(versions.id, currentId) : undefined,
      ),
    )
    .orderBy(versions.seq)
    .limit(excess)
    .all();
  for (const v of oldest)
    tx.update(versions).set({ status: "archived", archivedAt: now }).where(eq(versions.id, v.id)).run();
}

/** "Current version", its one home: the extension's newest approved version (or none). */
export function refreshCurrent(tx: Tx, extensionId: string): string | null {
  const newest = tx
    .select({ id: versions.id })
    .from(versions)
    .where(and(eq(versions.extensionId, extensionId), eq(versions.status, "approved")))
    .orderBy(desc(versions.seq))
    .get();
  return newest?.id ?? null;
}
