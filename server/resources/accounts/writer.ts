/**
 * The one writer of `accounts`. Accounts come in only through fixtures (the API has no route that makes one),
 * but they go through a writer all the same: the loader calls it inside its transaction.
 */
import { eq, sql } from "drizzle-orm";
import type { Db } from "../../db/database";
import { accounts } from "../../db/schema";

const p = sql.placeholder;

export interface NewAccount {
  id: string;
  name: string;
  createdAt: string;
}

export function createAccountWriter(db: Db) {
  const existsStmt = db
    .select({ id: accounts.id })
    .from(accounts)
    .where(eq(accounts.id, p("id")))
    .prepare();
  const insertStmt = db
    .insert(accounts)
    .values({ id: p("id"), name: p("name"), createdAt: p("createdAt") })
    .prepare();

  return {
    exists: (id: string): boolean => existsStmt.get({ id }) !== undefined,
    insertAccount(row: NewAccount): void {
      insertStmt.run({ ...row });
    },
  };
}

export type AccountWriter = ReturnType<typeof createAccountWriter>;
