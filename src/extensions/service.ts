/**
 * Extensions: the developer-facing operations. Plain arguments in, plain objects out; the caller's account
 * id scopes every read, and an extension of another account is reported exactly like a missing one.
 */
import { and, count, desc, eq, exists, getTableColumns, gte, isNull, lt, type SQLWrapper, sql } from "drizzle-orm";
import { characterCount } from "../../client/text-length";
import type { BlobStore } from "../blobs/blob-store";
import type { Clock } from "../clock";
import { type Db, param } from "../db/database";
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
import { EXTENSION_DEFAULTS, NAME_MAX } from "./model";
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

/**
 * An extension's name as stored, or the API's refusal: the length rule applies after trimming, so the schema
 * leaves the maximum to this check. Fixtures run it too.
 */
export function extensionName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0) throw errors.extensionNameInvalid("blank", NAME_MAX);
  if (characterCount(trimmed) > NAME_MAX) throw errors.extensionNameInvalid("too_long", NAME_MAX);
  return trimmed;
}

/** The columns a create, or a fixture, may leave out: EXTENSION_DEFAULTS where it does. */
export function defaultedColumns(
  input: Pick<NewExtension, "short_description" | "description" | "pricing" | "visibility" | "status">,
) {
  return {
    shortDescription: input.short_description ?? EXTENSION_DEFAULTS.short_description,
    description: input.description ?? EXTENSION_DEFAULTS.description,
    pricing: JSON.stringify(input.pricing ?? EXTENSION_DEFAULTS.pricing),
    visibility: input.visibility ?? EXTENSION_DEFAULTS.visibility,
    status: input.status ?? EXTENSION_DEFAULTS.status,
  };
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

  // The write paths' statements, prepared once: drizzle's builder would build and prepare each query on every
  // request. bun:sqlite has one connection, so these run inside the caller's open transaction.
  const countStmt = db
    .select({ n: count() })
    .from(extensions)
    .where(eq(extensions.accountId, sql.placeholder("accountId")))
    .prepare();
  // Slugs are lowercase ASCII, so "starts with the prefix" is a range of the unique slug index (a LIKE would scan
  // every extension of every account on each create).
  const slugsStmt = db
    .select({ slug: extensions.slug })
    .from(extensions)
    .where(and(gte(extensions.slug, sql.placeholder("from")), lt(extensions.slug, sql.placeholder("to"))))
    .prepare();
  const insertStmt = db
    .insert(extensions)
    .values({
      id: sql.placeholder("id"),
      accountId: sql.placeholder("accountId"),
      slug: sql.placeholder("slug"),
      name: sql.placeholder("name"),
      shortDescription: sql.placeholder("shortDescription"),
      description: sql.placeholder("description"),
      pricing: sql.placeholder("pricing"),
      visibility: sql.placeholder("visibility"),
      status: sql.placeholder("status"),
      createdAt: sql.placeholder("createdAt"),
      updatedAt: sql.placeholder("updatedAt"),
    })
    .prepare();
  const updateStmt = db
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
    .prepare();
  const markListedStmt = markListedQuery(db);

  /**
   * Inserts inside an open transaction (the caller's: the prepared statements above share its connection),
   * enforcing the per-account cap and slug uniqueness.
   */
  /** The per-account cap, its one home: the API's create and a fixture's extensions both check it here. */
  function checkRoom(accountId: string): void {
    const max = limits.resolve("max_extensions_per_account", { accountId }).value;
    const current = countStmt.get({ accountId })?.n ?? 0;
    if (current >= max)
      throw errors.limitExceeded("max_extensions_per_account", max, current, "extensions per account");
  }

  /** A slug for a new extension of this name, unique among all extensions. */
  function slugFor(name: string): string {
    const base = slugify(name);
    const prefix = base.slice(0, 40);
    const taken = new Set(slugsStmt.all({ from: prefix, to: `${prefix}\uffff` }).map((r) => r.slug));
    return uniqueSlug(base, taken);
  }

  function insert(accountId: string, input: NewExtension): Omit<ExtensionRow, "listedAt"> {
    checkRoom(accountId);
    const name = extensionName(input.name);
    const now = clock.iso();
    // listed_at is left to markListedStmt, the rule's one home; no caller reads it from here.
    const row: Omit<ExtensionRow, "listedAt"> = {
      id: input.id ?? newId("ext", clock.nowMs()),
      accountId,
      slug: slugFor(name),
      name,
      ...defaultedColumns(input),
      currentVersionId: null,
      ratingCount: 0,
      createdAt: now,
      updatedAt: now,
    };
    insertStmt.run(row);
    // A fixture may create an extension already approved and public: listed from its first instant.
    markListedStmt.run({ id: row.id, now });
    return row;
  }

  // The routes' write transactions, made once (db.writer); the answer is read inside, so the write and its
  // read-back share one transaction.
  const createTx = db.writer((accountId: string, input: CreateExtensionInput) => insert(accountId, input));
  const updateTx = db.writer((accountId: string, id: string, patch: UpdateExtensionInput): Extension => {
    // The row and its install count in one statement: a PATCH changes neither the count nor who owns the row.
    const found = ownedWithCountStmt.get({ id, accountId });
    if (!found) throw errors.extensionNotFound(id);
    const current = found.row;
    const next: Partial<ExtensionRow> = {};
    if (patch.name !== undefined && extensionName(patch.name) !== current.name) next.name = extensionName(patch.name);
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
    updateStmt.run(row);
    markListedStmt.run({ id, now: updatedAt });
    // listed_at is not part of the answer, so the row is complete without reading it back.
    return toFull(row, found.installCount);
  });

  return {
    findOwned,
    insert,
    checkRoom,
    slugFor,
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
 * The spec's "publicly listed" rule, its one home: approved and public at the same time. The first instant it
 * holds is recorded for good (`listed_at`, never cleared), so every write that can change status or visibility
 * runs this after it. Parameters: `id`, `now`.
 */
function markListedQuery(db: Pick<Db, "update">) {
  return db
    .update(extensions)
    .set({ listedAt: param("now") })
    .where(
      and(
        eq(extensions.id, sql.placeholder("id")),
        isNull(extensions.listedAt),
        eq(extensions.status, "approved"),
        eq(extensions.visibility, "public"),
      ),
    )
    .prepare();
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

/** markListedQuery for the other services' writes (review, admin status, fixtures). */
export function markListedIfPublic(tx: Pick<Db, "update">, extensionId: string, nowIso: string): void {
  markListedQuery(tx).run({ id: extensionId, now: nowIso });
}

export type ExtensionService = ReturnType<typeof createExtensionService>;
