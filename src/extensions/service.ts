/**
 * Extensions: the developer-facing operations. Plain arguments in, plain objects out; the caller's account
 * id scopes every read, and an extension of another account is reported exactly like a missing one.
 */
import { and, desc, eq, getTableColumns, sql } from "drizzle-orm";
import type { BlobStore } from "../blobs/blob-store";
import type { Clock } from "../clock";
import type { Db } from "../db/database";
import type { DbGeneration } from "../db/generation";
import { createReadCache } from "../db/read-cache";
import { extensions, installCounters, versions } from "../db/schema";
import { errors } from "../errors/catalog";
import { newId } from "../ids";
import type { LimitsService } from "../limits/service";
import type {
  CreateExtensionInput,
  Extension,
  ExtensionCreated,
  ExtensionListItem,
  ExtensionStatus,
  Pricing,
  UpdateExtensionInput,
  Visibility,
} from "./model";
import { NAME_MAX } from "./model";
import { slugify, uniqueSlug } from "./slug";

export type ExtensionRow = typeof extensions.$inferSelect;

export interface NewExtension extends CreateExtensionInput {
  id?: string;
  visibility?: Visibility;
  status?: ExtensionStatus;
}

// Written with qualified names on purpose: in a single-table select drizzle renders columns unqualified, so
// `${installCounters.extensionId} = ${extensions.id}` would become "extension_id" = "id" and compare the table to itself.
const installCount =
  sql<number>`(SELECT COALESCE(SUM("install_counters"."installed"), 0) FROM "install_counters" WHERE "install_counters"."extension_id" = "extensions"."id")`.mapWith(
    Number,
  );

/** The length rule applies after trimming, so the schema leaves the maximum to this check. */
function trimmedName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0) throw errors.extensionNameInvalid("blank", NAME_MAX);
  if (trimmed.length > NAME_MAX) throw errors.extensionNameInvalid("too_long", NAME_MAX);
  return trimmed;
}

export function createExtensionService(deps: {
  db: Db;
  clock: Clock;
  limits: LimitsService;
  blobs: BlobStore;
  generation: DbGeneration;
}) {
  const { db, clock, limits, blobs, generation } = deps;

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
  const listStmt = db
    .select(listSelection)
    .from(extensions)
    .where(eq(extensions.accountId, sql.placeholder("accountId")))
    .orderBy(desc(extensions.createdAt), desc(extensions.id))
    .prepare();

  // Prepared once: nearly every route looks its extension up. bun:sqlite has one connection, so these
  // statements also see the writes of an open transaction.
  const ownedStmt = db
    .select()
    .from(extensions)
    .where(and(eq(extensions.id, sql.placeholder("id")), eq(extensions.accountId, sql.placeholder("accountId"))))
    .prepare();
  // GET /extensions/:id in one statement: each statement outside a transaction opens its own read transaction.
  const ownedWithCountStmt = db
    .select({ row: getTableColumns(extensions), installCount })
    .from(extensions)
    .where(and(eq(extensions.id, sql.placeholder("id")), eq(extensions.accountId, sql.placeholder("accountId"))))
    .prepare();
  const installCountStmt = db
    .select({ n: sql<number>`COALESCE(SUM(${installCounters.installed}), 0)` })
    .from(installCounters)
    .where(eq(installCounters.extensionId, sql.placeholder("id")))
    .prepare();

  function findOwned(accountId: string, id: string): ExtensionRow {
    const row = ownedStmt.get({ id, accountId });
    if (!row) throw errors.extensionNotFound(id);
    return row;
  }

  // The developer reads, kept until the database changes (src/db/read-cache.ts); the list already serialized.
  const listCache = createReadCache<string>(generation);
  const getCache = createReadCache<Extension>(generation);
  function listJson(accountId: string): string {
    return listCache.get(accountId, () => JSON.stringify({ extensions: listStmt.all({ accountId }) }));
  }

  function toFull(row: ExtensionRow, knownCount?: number): Extension {
    const count = knownCount ?? installCountStmt.get({ id: row.id })?.n ?? 0;
    return {
      id: row.id,
      slug: row.slug,
      name: row.name,
      short_description: row.shortDescription,
      description: row.description,
      pricing: JSON.parse(row.pricing) as Pricing,
      visibility: row.visibility as Visibility,
      status: row.status as ExtensionStatus,
      installCount: Number(count),
      currentVersionId: row.currentVersionId,
      ratingCount: row.ratingCount,
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
    };
  }

  // The write paths' statements, prepared once: drizzle's builder would build and prepare each query on every request.
  // bun:sqlite has one connection, so these run inside the caller's open transaction.
  const countStmt = db.$client.prepare<{ n: number }, [string]>(
    "SELECT COUNT(*) AS n FROM extensions WHERE account_id = ?",
  );
  // Slugs are lowercase ASCII, so "starts with the prefix" is a range of the unique slug index (a LIKE would scan
  // every extension of every account on each create).
  const slugsStmt = db.$client.prepare<{ slug: string }, [string, string]>(
    "SELECT slug FROM extensions WHERE slug >= ? AND slug < ?",
  );
  const insertStmt = db.$client.prepare<
    never,
    [string, string, string, string, string, string, string, string, string, string | null, string, string]
  >(
    `INSERT INTO extensions (id, account_id, slug, name, short_description, description, pricing, visibility, status, current_version_id, rating_count, listed_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, 0, ?, ?, ?)`,
  );
  const updateStmt = db.$client.prepare<never, [string, string, string, string, string, string, string]>(
    "UPDATE extensions SET name = ?, short_description = ?, description = ?, pricing = ?, visibility = ?, updated_at = ? WHERE id = ?",
  );
  const markListedStmt = db.$client.prepare<never, [string, string]>(
    "UPDATE extensions SET listed_at = ? WHERE id = ? AND listed_at IS NULL AND status = 'approved' AND visibility = 'public'",
  );

  /**
   * Inserts inside an open transaction (the caller's: the prepared statements above share its connection),
   * enforcing the per-account cap and slug uniqueness.
   */
  function insert(accountId: string, input: NewExtension): ExtensionRow {
    const max = limits.resolve("max_extensions_per_account", { accountId }).value;
    const current = countStmt.get(accountId)?.n ?? 0;
    if (current >= max)
      throw errors.limitExceeded("max_extensions_per_account", max, current, "extensions per account");
    const name = trimmedName(input.name);
    const base = slugify(name);
    const prefix = base.slice(0, 40);
    const taken = new Set(slugsStmt.all(prefix, `${prefix}\uffff`).map((r) => r.slug));
    const now = clock.iso();
    const row: ExtensionRow = {
      id: input.id ?? newId("ext", clock.nowMs()),
      accountId,
      slug: uniqueSlug(base, taken),
      name,
      shortDescription: input.short_description ?? "",
      description: input.description ?? "",
      pricing: JSON.stringify(input.pricing ?? { type: "free" }),
      visibility: input.visibility ?? "private",
      status: input.status ?? "draft",
      currentVersionId: null,
      ratingCount: 0,
      listedAt: input.status === "approved" && input.visibility === "public" ? now : null,
      createdAt: now,
      updatedAt: now,
    };
    insertStmt.run(
      row.id,
      row.accountId,
      row.slug,
      row.name,
      row.shortDescription,
      row.description,
      row.pricing,
      row.visibility,
      row.status,
      row.listedAt,
      row.createdAt,
      row.updatedAt,
    );
    return row;
  }

  // The routes' write transactions, as bun:sqlite transaction functions made once (drizzle's `db.transaction`
  // builds one on every call); the answer is read inside, so the write and its read-back share one transaction.
  const createTx = db.$client.transaction((accountId: string, input: CreateExtensionInput) => insert(accountId, input));
  const updateTx = db.$client.transaction((accountId: string, id: string, patch: UpdateExtensionInput): Extension => {
    const current = findOwned(accountId, id);
    const next: Partial<ExtensionRow> = {};
    if (patch.name !== undefined && trimmedName(patch.name) !== current.name) next.name = trimmedName(patch.name);
    if (patch.short_description !== undefined && patch.short_description !== current.shortDescription)
      next.shortDescription = patch.short_description;
    if (patch.description !== undefined && patch.description !== current.description)
      next.description = patch.description;
    if (patch.pricing !== undefined && JSON.stringify(patch.pricing) !== current.pricing)
      next.pricing = JSON.stringify(patch.pricing);
    if (patch.visibility !== undefined && patch.visibility !== current.visibility) next.visibility = patch.visibility;
    // updatedAt moves only when something really changed.
    if (Object.keys(next).length === 0) return toFull(current);
    const updatedAt = clock.iso();
    const row: ExtensionRow = { ...current, ...next, updatedAt };
    updateStmt.run(row.name, row.shortDescription, row.description, row.pricing, row.visibility, updatedAt, id);
    markListedStmt.run(updatedAt, id);
    // listed_at is not part of the answer, so the row is complete without reading it back.
    return toFull(row);
  });

  return {
    findOwned,
    insert,
    toFull,

    list(accountId: string): ExtensionListItem[] {
      return listStmt.all({ accountId }) as ExtensionListItem[];
    },

    /** `{"extensions":[…]}` already serialized (see listJson). */
    listJson,

    get(accountId: string, id: string): Extension {
      return getCache.get(`${accountId}\0${id}`, () => {
        const found = ownedWithCountStmt.get({ id, accountId });
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
      const blobIds = db.transaction((tx) => {
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

/** Records, once and for good, that an extension is publicly listed (approved and public at the same time). */
export function markListedIfPublic(tx: Pick<Db, "update">, extensionId: string, nowIso: string): void {
  tx.update(extensions)
    .set({ listedAt: nowIso })
    .where(
      and(
        eq(extensions.id, extensionId),
        sql`${extensions.listedAt} IS NULL`,
        eq(extensions.status, "approved"),
        eq(extensions.visibility, "public"),
      ),
    )
    .run();
}

export type ExtensionService = ReturnType<typeof createExtensionService>;
