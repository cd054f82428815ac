/**
 * Admin limit overrides (spec §8: "per-extension override set by an admin", "per-developer override").
 * A scope's overrides are a map of limit key → value; PUT replaces the map, DELETE removes it.
 * Every key must be a known limit and no value may pass that limit's hard maximum: the whole map is
 * checked before anything is written, and all problems are reported at once.
 */
import { eq, sql } from "drizzle-orm";
import { isLimitKey, LIMIT_VALUE_MAX, limitDefinition } from "../../../common/limits-catalog";
import { type Db, param, type Tx } from "../../db/database";
import { accountOverrides, accounts, extensionOverrides, extensions } from "../../db/schema";
import type { ErrorDetail } from "../../errors/api-error";
import { errors } from "../../errors/catalog";
import type { OverridesView } from "./overrides-model";

export type OverrideScope = "account" | "extension";

const p = sql.placeholder;

/** Unknown keys and values above a hard limit, one detail each; `at` prefixes the field path. */
export function checkLimitValues(values: Record<string, number>, at: string): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  for (const [key, value] of Object.entries(values)) {
    const field = at ? `${at}.${key}` : key;
    if (!isLimitKey(key)) {
      problems.push({
        field,
        message: `${key} is not a known limit key (the keys are those of GET /developer/v1/extensions/:id/limits)`,
      });
      continue;
    }
    const hard = limitDefinition(key).hardMax;
    if (hard !== undefined && value > hard)
      problems.push({ field, message: `${key} cannot exceed its hard limit of ${hard} (got ${value})` });
    else if (value > LIMIT_VALUE_MAX) problems.push({ field, message: `${key} must be at most ${LIMIT_VALUE_MAX}` });
  }
  return problems;
}

export function createOverrideService(deps: { db: Db; clock: { iso(): string } }) {
  const { db, clock } = deps;

  function requireTarget(tx: Pick<Db, "select">, scope: OverrideScope, id: string): void {
    if (scope === "extension") {
      if (!tx.select({ id: extensions.id }).from(extensions).where(eq(extensions.id, id)).get())
        throw errors.extensionNotFound(id);
    } else if (!tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, id)).get()) {
      throw errors.accountNotFound(id);
    }
  }

  function read(tx: Pick<Db, "select">, scope: OverrideScope, id: string): Record<string, number> {
    const rows =
      scope === "extension"
        ? tx
            .select({ key: extensionOverrides.limitKey, value: extensionOverrides.value })
            .from(extensionOverrides)
            .where(eq(extensionOverrides.extensionId, id))
            .all()
        : tx
            .select({ key: accountOverrides.limitKey, value: accountOverrides.value })
            .from(accountOverrides)
            .where(eq(accountOverrides.accountId, id))
            .all();
    return Object.fromEntries(rows.map((r) => [r.key, r.value]));
  }

  // The one writer of both override tables. Only a different value is a change: setting the value a limit
  // already has (a reloaded fixture, a limit request approved for it) leaves its updatedAt alone.
  const setAccountStmt = db
    .insert(accountOverrides)
    .values({ accountId: p("id"), limitKey: p("key"), value: p("value"), updatedAt: p("now") })
    .onConflictDoUpdate({
      target: [accountOverrides.accountId, accountOverrides.limitKey],
      set: { value: param("value"), updatedAt: param("now") },
      setWhere: sql`${accountOverrides.value} <> ${p("value")}`,
    })
    .prepare();
  const setExtensionStmt = db
    .insert(extensionOverrides)
    .values({ extensionId: p("id"), limitKey: p("key"), value: p("value"), updatedAt: p("now") })
    .onConflictDoUpdate({
      target: [extensionOverrides.extensionId, extensionOverrides.limitKey],
      set: { value: param("value"), updatedAt: param("now") },
      setWhere: sql`${extensionOverrides.value} <> ${p("value")}`,
    })
    .prepare();

  /**
   * Sets the scope's overrides named in `values` (others are kept), inside the caller's transaction: the API's
   * replace, an approved limit request and a fixture's overrides. The values must already be checked
   * (checkLimitValues).
   */
  function setOverrides(scope: OverrideScope, id: string, values: Record<string, number>): void {
    const now = clock.iso();
    const stmt = scope === "extension" ? setExtensionStmt : setAccountStmt;
    for (const [key, value] of Object.entries(values)) stmt.run({ id, key, value, now });
  }

  function clear(tx: Tx, scope: OverrideScope, id: string): void {
    if (scope === "extension") tx.delete(extensionOverrides).where(eq(extensionOverrides.extensionId, id)).run();
    else tx.delete(accountOverrides).where(eq(accountOverrides.accountId, id)).run();
  }

  return {
    setOverrides,

    get(scope: OverrideScope, id: string): OverridesView {
      requireTarget(db, scope, id);
      return { scope, id, overrides: read(db, scope, id) };
    },

    /** Replaces the scope's overrides with `values` (keys not named lose their override). */
    replace(scope: OverrideScope, id: string, values: Record<string, number>): OverridesView {
      const problems = checkLimitValues(values, "");
      return db.write((tx) => {
        requireTarget(tx, scope, id);
        if (problems.length > 0) throw errors.limitValuesInvalid(problems);
        clear(tx, scope, id);
        setOverrides(scope, id, values);
        return { scope, id, overrides: read(tx, scope, id) };
      });
    },

    remove(scope: OverrideScope, id: string): void {
      db.write((tx) => {
        requireTarget(tx, scope, id);
        clear(tx, scope, id);
      });
    },
  };
}

export type OverrideService = ReturnType<typeof createOverrideService>;
