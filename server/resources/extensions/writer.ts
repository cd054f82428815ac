/**
 * The one writer of `extensions`: the API's create, a fixture's extensions and an export's rows are inserted
 * here, inside the caller's transaction, with the rules every extension row keeps — room under
 * `max_extensions_per_account`, a name of 1–80 characters once trimmed, a slug no other extension has (made from
 * the name, or an export's own, which must be free), EXTENSION_DEFAULTS for what the input leaves out, no
 * current version until review makes one (server/resources/versions/review.ts), and `listed_at` by the "publicly listed"
 * rule (markListed).
 */
import { and, count, eq, isNull, sql } from "drizzle-orm";
import { NAME_MAX } from "../../../common/api-rules";
import { characterCount } from "../../../common/text/text-length";
import type { Clock } from "../../base/clock";
import { newId } from "../../base/ids";
import { onFirstUse } from "../../base/on-first-use";
import { type Db, param } from "../../db/database";
import { extensions } from "../../db/schema";
import { errors } from "../../errors/catalog";
import type { LimitsService } from "../limits/service";
import { type CreateExtensionInput, EXTENSION_DEFAULTS, type ExtensionStatus, type Visibility } from "./model";
import { firstFreeSlug, type SlugBatch, slugify } from "./slug";

const p = sql.placeholder;

export type ExtensionRow = typeof extensions.$inferSelect;

/** An extension to insert: the API's create fields, plus what a fixture or an export may set. */
export interface NewExtension extends CreateExtensionInput {
  accountId: string;
  /** Generated when absent. */
  id?: string;
  visibility?: Visibility;
  status?: ExtensionStatus;
  /** An export's slug; made from the name when absent. */
  slug?: string;
  ratingCount?: number;
  /** An export's listed_at; otherwise set by the "publicly listed" rule. */
  listedAt?: string;
  createdAt: string;
  /** Default: createdAt. */
  updatedAt?: string;
}

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

/**
 * The spec's "publicly listed" rule, its one home: approved and public at the same time. The first instant it
 * holds is recorded for good (`listed_at`, never cleared), so every write that can change status or visibility
 * runs it after. Parameters: `id`, `now`.
 */
function markListedQuery(db: Pick<Db, "update">) {
  return db
    .update(extensions)
    .set({ listedAt: param("now") })
    .where(
      and(
        eq(extensions.id, p("id")),
        isNull(extensions.listedAt),
        eq(extensions.status, "approved"),
        eq(extensions.visibility, "public"),
      ),
    );
}

export function createExtensionWriter(deps: { db: Db; clock: Clock; limits: LimitsService }) {
  const { db, clock, limits } = deps;
  const countStmt = onFirstUse(() =>
    db
      .select({ n: count() })
      .from(extensions)
      .where(eq(extensions.accountId, p("accountId")))
      .prepare(),
  );
  const ownerStmt = onFirstUse(() =>
    db
      .select({ accountId: extensions.accountId })
      .from(extensions)
      .where(eq(extensions.id, p("id")))
      .prepare(),
  );
  const slugOwnerStmt = onFirstUse(() =>
    db
      .select({ id: extensions.id })
      .from(extensions)
      .where(eq(extensions.slug, p("slug")))
      .prepare(),
  );
  const insertStmt = onFirstUse(() =>
    db
      .insert(extensions)
      .values({
        id: p("id"),
        accountId: p("accountId"),
        slug: p("slug"),
        name: p("name"),
        shortDescription: p("shortDescription"),
        description: p("description"),
        pricing: p("pricing"),
        visibility: p("visibility"),
        status: p("status"),
        currentVersionId: p("currentVersionId"),
        ratingCount: p("ratingCount"),
        listedAt: p("listedAt"),
        createdAt: p("createdAt"),
        updatedAt: p("updatedAt"),
      })
      .prepare(),
  );
  const markListedStmt = onFirstUse(() => markListedQuery(db).prepare());

  /** The per-account cap, its one home. */
  function checkRoom(accountId: string): void {
    const max = limits.resolve("max_extensions_per_account", { accountId }).value;
    const current = countStmt().get({ accountId })?.n ?? 0;
    if (current >= max)
      throw errors.limitExceeded("max_extensions_per_account", max, current, "extensions per account");
  }

  /**
   * A slug for a new extension of this name, unique among all extensions: the first of its candidates no
   * extension has, each looked up in the unique slug index. Within a batch (SlugBatch) a name's search goes on
   * where its last one stopped.
   */
  function slugFor(name: string, batch?: SlugBatch): string {
    const base = slugify(name);
    const taken = (slug: string) => slugOwnerStmt().get({ slug }) !== undefined;
    const { slug, n } = firstFreeSlug(base, taken, batch?.get(base) ?? 1);
    batch?.set(base, n + 1);
    return slug;
  }

  function markListed(id: string, now: string): void {
    markListedStmt().run({ id, now });
  }

  return {
    markListed,
    /** The account that holds the extension with this id, if any. */
    ownerOf: (id: string): string | undefined => ownerStmt().get({ id })?.accountId,

    /**
     * The row as inserted; its listed_at is left to markListed, the rule's one home (no caller reads it here).
     * `slugs`: the searches of a batch of inserts that frees no slug in between (slugFor).
     */
    insertExtension(input: NewExtension, slugs?: SlugBatch): Omit<ExtensionRow, "listedAt"> {
      if (input.id !== undefined && ownerStmt().get({ id: input.id }))
        throw errors.idTaken(input.id, "another extension");
      checkRoom(input.accountId);
      const name = extensionName(input.name);
      if (input.slug !== undefined) {
        const owner = slugOwnerStmt().get({ slug: input.slug });
        if (owner) throw errors.slugTaken(input.slug, owner.id);
      }
      const row: Omit<ExtensionRow, "listedAt"> = {
        id: input.id ?? newId("ext", clock.nowMs()),
        accountId: input.accountId,
        slug: input.slug ?? slugFor(name, slugs),
        name,
        shortDescription: input.short_description ?? EXTENSION_DEFAULTS.short_description,
        description: input.description ?? EXTENSION_DEFAULTS.description,
        pricing: JSON.stringify(input.pricing ?? EXTENSION_DEFAULTS.pricing),
        visibility: input.visibility ?? EXTENSION_DEFAULTS.visibility,
        status: input.status ?? EXTENSION_DEFAULTS.status,
        currentVersionId: null,
        ratingCount: input.ratingCount ?? 0,
        createdAt: input.createdAt,
        updatedAt: input.updatedAt ?? input.createdAt,
      };
      insertStmt().run({ ...row, listedAt: input.listedAt ?? null });
      // A fixture may create an extension already approved and public: listed from its first instant.
      markListed(row.id, row.createdAt);
      return row;
    },
  };
}

export type ExtensionWriter = ReturnType<typeof createExtensionWriter>;
