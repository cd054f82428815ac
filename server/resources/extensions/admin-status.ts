/**
 * The admin status `disabled` (api-decisions: "disabled is set by a platform admin"). Disabling keeps
 * everything else as it is; enabling gives back the status the review history implies, read from the
 * versions rather than remembered, so it is right even if versions were decided while disabled:
 * approved if any version was ever approved, else in_review if one is pending, else rejected if one was
 * rejected, else draft.
 */
import { eq, sql } from "drizzle-orm";
import type { Clock } from "../../base/clock";
import type { Db, Tx } from "../../db/database";
import { extensions, versions } from "../../db/schema";
import { errors } from "../../errors/catalog";
import type { ExtensionStatus } from "./model";

function statusFromVersions(tx: Pick<Db, "select">, extensionId: string): ExtensionStatus {
  const row = tx
    .select({
      approved: sql<number>`COALESCE(SUM(${versions.approvedAt} IS NOT NULL), 0)`,
      pending: sql<number>`COALESCE(SUM(${versions.status} = 'pending'), 0)`,
      rejected: sql<number>`COALESCE(SUM(${versions.status} = 'rejected'), 0)`,
    })
    .from(versions)
    .where(eq(versions.extensionId, extensionId))
    .get();
  if (Number(row?.approved ?? 0) > 0) return "approved";
  if (Number(row?.pending ?? 0) > 0) return "in_review";
  if (Number(row?.rejected ?? 0) > 0) return "rejected";
  return "draft";
}

export interface AdminStatusResult {
  id: string;
  status: ExtensionStatus;
  updatedAt: string;
}

export function createAdminStatusService(deps: {
  db: Db;
  clock: Clock;
  /** The "publicly listed" rule (server/resources/extensions/writer.ts). */
  markListed: (extensionId: string, now: string) => void;
}) {
  const { db, clock, markListed } = deps;

  function setStatus(extensionId: string, next: (tx: Tx) => ExtensionStatus): AdminStatusResult {
    return db.write((tx) => {
      const row = tx
        .select({ status: extensions.status, updatedAt: extensions.updatedAt })
        .from(extensions)
        .where(eq(extensions.id, extensionId))
        .get();
      if (!row) throw errors.extensionNotFound(extensionId);
      const status = next(tx);
      // Idempotent: the same status again changes nothing, updatedAt included.
      if (status === row.status) return { id: extensionId, status, updatedAt: row.updatedAt };
      const now = clock.iso();
      tx.update(extensions).set({ status, updatedAt: now }).where(eq(extensions.id, extensionId)).run();
      markListed(extensionId, now);
      return { id: extensionId, status, updatedAt: now };
    });
  }

  return {
    disable: (extensionId: string) => setStatus(extensionId, () => "disabled"),
    enable: (extensionId: string) =>
      setStatus(extensionId, (tx) => {
        const current = tx
          .select({ status: extensions.status })
          .from(extensions)
          .where(eq(extensions.id, extensionId))
          .get()!;
        return current.status === "disabled"
          ? statusFromVersions(tx, extensionId)
          : (current.status as ExtensionStatus);
      }),
  };
}
