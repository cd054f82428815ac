/**
 * The one writer of `team_members`: the members route and a fixture's members are inserted here, inside the
 * caller's transaction, with the rules every member row keeps — its email stored trimmed and lowercase, once
 * per account (409 member_exists), and room under `max_team_members` (the owner counted, always once).
 */
import { and, eq, sql } from "drizzle-orm";
import type { Clock } from "../../base/clock";
import { newId } from "../../base/ids";
import type { Db } from "../../db/database";
import { teamMembers } from "../../db/schema";
import { errors } from "../../errors/catalog";
import type { LimitsService } from "../limits/service";

const p = sql.placeholder;

export type MemberRow = typeof teamMembers.$inferSelect;

export interface NewMember {
  accountId: string;
  email: string;
  role: MemberRow["role"];
  /** Generated when absent. */
  id?: string;
  createdAt: string;
}

/** A member's email as stored: trimmed, lowercase (unique per account). */
export const memberEmail = (email: string) => email.trim().toLowerCase();

/** Team members as counted against max_team_members: the account's owner counts even when not listed as a member. */
export function membersWithOwner(members: number, owners: number): number {
  return members + (owners > 0 ? 0 : 1);
}

/** The rows and the owner rows of an account (parameter `accountId`): what the cap counts. */
const memberRowsQuery = (db: Pick<Db, "select">) =>
  db
    .select({ n: sql<number>`COUNT(*)`, owners: sql<number>`COALESCE(SUM(${teamMembers.role} = 'owner'), 0)` })
    .from(teamMembers)
    .where(eq(teamMembers.accountId, p("accountId")));

/**
 * Members counted against the cap, for the reads that show it (the members list, the limits page): the very
 * number the writer checks the cap against.
 */
export function memberCount(db: Pick<Db, "select">, accountId: string): number {
  const row = memberRowsQuery(db).prepare().get({ accountId });
  return membersWithOwner(Number(row?.n ?? 0), Number(row?.owners ?? 0));
}

export function createMemberWriter(deps: { db: Db; clock: Clock; limits: LimitsService }) {
  const { db, clock, limits } = deps;
  const countStmt = memberRowsQuery(db).prepare();
  const withEmailStmt = db
    .select({ id: teamMembers.id })
    .from(teamMembers)
    .where(and(eq(teamMembers.accountId, p("accountId")), sql`lower(${teamMembers.email}) = ${p("email")}`))
    .prepare();
  const byIdStmt = db
    .select({ id: teamMembers.id })
    .from(teamMembers)
    .where(eq(teamMembers.id, p("id")))
    .prepare();
  const insertStmt = db
    .insert(teamMembers)
    .values({ id: p("id"), accountId: p("accountId"), email: p("email"), role: p("role"), createdAt: p("createdAt") })
    .prepare();

  /** The team cap (owner included), its one home. */
  function checkRoom(accountId: string): void {
    const max = limits.resolve("max_team_members", { accountId }).value;
    const row = countStmt.get({ accountId });
    const current = membersWithOwner(Number(row?.n ?? 0), Number(row?.owners ?? 0));
    if (current >= max)
      throw errors.limitExceeded("max_team_members", max, current, "team members per account (owner included)");
  }

  return {
    /** The account's member with this email (any case, surrounding spaces ignored), if any. */
    withEmail: (accountId: string, email: string) => withEmailStmt.get({ accountId, email: memberEmail(email) }),

    insertMember(input: NewMember): MemberRow {
      const email = memberEmail(input.email);
      if (withEmailStmt.get({ accountId: input.accountId, email })) throw errors.memberExists(email);
      if (input.id !== undefined && byIdStmt.get({ id: input.id }))
        throw errors.idTaken(input.id, "another team member");
      // An owner row stands for the owner, who is counted already: it takes no room.
      if (input.role !== "owner") checkRoom(input.accountId);
      const row: MemberRow = {
        id: input.id ?? newId("mem", clock.nowMs()),
        accountId: input.accountId,
        email,
        role: input.role,
        createdAt: input.createdAt,
      };
      insertStmt.run(row);
      return row;
    },
  };
}

export type MemberWriter = ReturnType<typeof createMemberWriter>;
