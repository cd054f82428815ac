/**
 * Extensions: the developer-facing operations. Plain arguments in, plain objects out; the caller's account
 * id scopes every read, and an extension of another account is reported exactly like a missing one.
 */
import { and, desc, eq, exists, getTableColumns, type SQLWrapper, sql } from "drizzle-orm";
import type { Clock } from "../../base/clock";
import { onFirstUse } from "../../base/on-first-use";
import type { BlobStore } from "../../blobs/blob-store";
import { type Db, param } from "../../db/database";
import type { DbGeneration } from "../../db/generation";
import { createReadCache } from "../../db/read-cache";
import { extensions, installCounters, versions } from "../../db/schema";
import { errors } from "../../errors/catalog";
import type { LimitsService } from "../limits/service";
import type { CreateExtensionInput, Extension, ExtensionCreated, Pricing, UpdateExtensionInput } from "./model";
import { createExtensionWriter, type ExtensionRow, extensionName } from "./writer";

export type { ExtensionRow };

// Written with qualified names on purpose: in a single-table select drizzle renders columns unqualified, so
// `${installCounters.extensionId} = ${extensions.id}` would become "extension_id" = "id" and compare the table to itself.
const installCount =
  sql<number>`(SELECT COALESCE(SUM("install_counters"."installed"), 0) FROM "install_counters" WHERE "install_counters"."extension_id" = "extensions"."id")`.mapWith(
    Number,
  );

export function createExtensionService(deps: {
  db: Db;
  clock: Clock;
  limits: LimitsService;
  blobs: BlobStore;
  generation: DbGeneration;
}) {
  const { db, clock, blobs, generation } = deps;
  const writer = createExtensionWriter(deps);

  const listSelection = {
    id: extensions.id,
    slug: extensions.slug,
    name: extensions.name,
    visibility: extensions.visibility,
    status: extensions.status,
    installCount,
    currentVersionId: extensions.currentVersionId,
    createdAt: extensions.createdAt,
    updatedAt: extensions.updatedAt,
  };
  // Each statement is prepared by its first run (drizzle builds its SQL then): the first list, which a start's
  // first answer usually is, prepares the list's alone.
  const listStmt = onFirstUse(() =>
    db
      .select(listSelection)
      .from(extensions)
      .where(eq(extensions.accountId, sql.placeholder("accountId")))
      .orderBy(desc(extensions.createdAt), desc(extensions.id))
      .prepare(),
  );

  // Prepared once: nearly every route looks its extension up. bun:sqlite has one connection, so these
  // statements also see the writes of an open transaction.
  const ownedStmt = onFirstUse(() =>
    db
      .select()
      .from(extensions)
      .where(and(eq(extensions.id, sql.placeholder("id")), eq(extensions.accountId, sql.placeholder("accountId"))))
      .prepare(),
  );
  // GET /extensions/:id in one statement: each statement outside a transaction opens its own read transaction.
  const ownedWithCountStmt = onFirstUse(() =>
    db
      .select({ row: getTableColumns(extensions), installCount })
      .from(extensions)
      .where(and(eq(extensions.id, sql.placeholder("id")), eq(extensions.accountId, sql.placeholder("accountId"))))
      .prepare(),
  );
  const installCountStmt = onFirstUse(() =>
    db
      .select({ n: sql<number>`COALESCE(SUM(${installCounters.installed}), 0)` })
      .from(installCounters)
      .where(eq(installCounters.extensionId, sql.placeholder("id")))
      .prepare(),
  );

  function findOwned(accountId: string, id: string): ExtensionRow {
    const row = ownedStmt().get({ id, accountId });
    if (!row) throw errors.extensionNotFound(id);
    return row;
  }

  // The developer reads, kept until the database changes (server/db/read-cache.ts); the list already serialized.
  const listCache = createReadCache<string>(generation);
  const getCache = createReadCache<Extension>(generation);
  function listJson(accountId: string): string {
    return listCache.get(accountId, () => JSON.stringify({ extensions: listStmt().all({ accountId }) }));
  }

  function toFull(row: ExtensionRow, knownCount?: number): Extension {
    const count = knownCount ?? installCountStmt().get({ id: row.id })?.n ?? 0;
    return {
      id: row.id,
      slug: row.slug,
      name: row.name,
      short_description: row.shortDescription,
      description: row.description,
      pricing: JSON.parse(row.pricing) as Pricing,
      visibility: row.visibility,
      status: row.status,
      installCount: Number(count),
      currentVersionId: row.currentVersionId,
      ratingCount: row.ratingCount,
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
    };
  }

  const updateStmt = onFirstUse(() =>
    db
      .update(extensions)
      .set({
        name: param("name"),
        shortDescription: param("shortDescription"),
        description: param("description"),
        pricing: param("pricing"),
        visibility: param("visibility"),
        updatedAt: param("updatedAt"),
      })
      .where(eq(extensions.id, param("id")))
      .prepare(),
  );
  // The routes' write transactions, made once (db.writer); the answer is read inside, so the write and its
  // read-back share one transaction. They write extension rows only, so keys already authenticated stay
  // remembered across them.
  const onlyExtensions = { credentialsUntouched: true } as const;
  const createTx = db.writer(
    (accountId: string, input: CreateExtensionInput) =>
      writer.insertExtension({ ...input, accountId, createdAt: clock.iso() }),
    onlyExtensions,
  );
  const updateTx = db.writer((accountId: string, id: string, patch: UpdateExtensionInput): Extension => {
    // The row and its install count in one statement: a PATCH changes neither the count nor who owns the row.
    const found = ownedWithCountStmt().get({ id, accountId });
    if (!found) throw errors.extensionNotFound(id);
    const current = found.row;
    const next: Partial<ExtensionRow> = {};
    const name = patch.name === undefined ? undefined : extensionName(patch.name);
    if (name !== undefined && name !== current.name) next.name = name;
    if (patch.short_description !== undefined && patch.short_description !== current.shortDescription)
      next.shortDescription = patch.short_description;
    if (patch.description !== undefined && patch.description !== current.description)
      next.description = patch.description;
    if (patch.pricing !== undefined && JSON.stringify(patch.pricing) !== current.pricing)
      next.pricing = JSON.stringify(patch.pricing);
    if (patch.visibility !== undefined && patch.visibility !== current.visibility) next.visibility = patch.visibility;
    // updatedAt moves only when something really changed.
    if (Object.keys(next).length === 0) return toFull(current, found.installCount);
    const updatedAt = clock.iso();
    const row: ExtensionRow = { ...current, ...next, updatedAt };
    updateStmt().run(row);
    // Of the two facts the listed rule reads, a PATCH can change only visibility: unless it did, the rule holds
    // now exactly when it held before, and then listed_at was set by the write that made it hold.
    if (next.visibility !== undefined) writer.markListed(id, updatedAt);
    // listed_at is not part of the answer, so the row is complete without reading it back.
    return toFull(row, found.installCount);
  }, onlyExtensions);

  return {
    findOwned,
    toFull,
    /** The one writer of extension rows (server/resources/extensions/writer.ts), for the loader and the other services. */
    insertExtension: writer.insertExtension,
    markListed: writer.markListed,
    ownerOf: writer.ownerOf,

    /** `{"extensions":[…]}` already serialized (see listJson). */
    listJson,

    get(accountId: string, id: string): Extension {
      return getCache.get(`${accountId}\0${id}`, () => {
        const found = ownedWithCountStmt().get({ id, accountId });
        if (!found) throw errors.extensionNotFound(id);
        return toFull(found.row, found.installCount);
      });
    },

    create(accountId: string, input: CreateExtensionInput): ExtensionCreated["extension"] {
      const row = createTx(accountId, input);
      return {
        id: row.id,
        slug: row.slug,
        name: row.name,
        // createTx inserts every extension as a draft (spec §3, rule 1); the response schema holds it to that.
        status: "draft",
        createdAt: row.createdAt,
      };
    },

    update(accountId: string, id: string, patch: UpdateExtensionInput): Extension {
      return updateTx(accountId, id, patch);
    },

    remove(accountId: string, id: string): void {
      const blobIds = db.write((tx) => {
        const row = findOwned(accountId, id);
        if (row.listedAt) throw errors.extensionListed(id);
        const ids = tx
          .select({ blob: versions.bundleBlobId })
          .from(versions)
          .where(eq(versions.extensionId, id))
          .all()
          .map((r) => r.blob);
        tx.delete(extensions).where(eq(extensions.id, id)).run();
        return ids;
      });
      // Rows are gone; a crash before these unlinks leaves strays that the start-up sweep removes.
      for (const blobId of blobIds) blobs.delete(blobId);
    },
  };
}

/**
 * Ownership, the rule findOwned reads, as a condition inside another table's statement: the extension exists and
 * belongs to the account. Lets a write check it in the same statement instead of reading the row first.
 */
export function ownedExtension(db: Pick<Db, "select">, extensionId: SQLWrapper, accountId: SQLWrapper) {
  return exists(
    db
      .select({ id: extensions.id })
      .from(extensions)
      .where(and(eq(extensions.id, extensionId), eq(extensions.accountId, accountId))),
  );
}

export type ExtensionService = ReturnType<typeof createExtensionService>;
