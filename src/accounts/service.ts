/**
 * What a developer does in the dashboard under Account → Security → API Keys, and the team page:
 * create a key (plaintext returned once, stored as a hash), list keys (prefix only), revoke (effective on
 * the very next request, since authentication reads the row), add and remove team members.
 * Caps come from LimitsService: `max_api_keys` (active keys; revoked ones do not count) and
 * `max_team_members` (the owner included).
 */
import { and, asc, eq, isNull, sql } from "drizzle-orm";
import { generateApiKey, type KeyHasher, keyPrefix } from "../auth/keys";
import type { Clock } from "../clock";
import type { Db } from "../db/database";
import { accounts, apiKeys, extensions, teamMembers } from "../db/schema";
import { errors } from "../errors/catalog";
import { newId } from "../ids";
import type { LimitsService } from "../limits/service";
import type { AccountSummary, AddMemberInput, ApiKey, CreateApiKeyInput, TeamMember } from "./model";

type KeyRow = typeof apiKeys.$inferSelect;

function toApiKey(row: KeyRow): ApiKey {
  return {
    id: row.id,
    accountId: row.accountId,
    name: row.name,
    keyPrefix: row.keyPrefix,
    scopes: JSON.parse(row.scopes) as string[],
    createdAt: row.createdAt,
    revokedAt: row.revokedAt,
  };
}

/**
 * Members counted against the cap: the rows, plus the owner unless a row already is the owner. Exported so
 * the limits endpoint's usage reports the very number the cap is checked against.
 */
export function memberCount(tx: Pick<Db, "select">, accountId: string): number {
  const row = tx
    .select({ n: sql<number>`COUNT(*)`, owners: sql<number>`COALESCE(SUM(${teamMembers.role} = 'owner'), 0)` })
    .from(teamMembers)
    .where(eq(teamMembers.accountId, accountId))
    .get();
  return membersWithOwner(Number(row?.n ?? 0), Number(row?.owners ?? 0));
}

/** Team members as counted against max_team_members: the account's owner counts even when not listed as a member. */
export function membersWithOwner(members: number, owners: number): number {
  return members + (owners > 0 ? 0 : 1);
}

/** The active-key cap, its one home: creating a key and a fixture's keys both check it here. */
export function checkKeyRoom(tx: Pick<Db, "select">, limits: LimitsService, accountId: string): void {
  const max = limits.resolve("max_api_keys", { accountId }).value;
  const active = Number(
    tx
      .select({ n: sql<number>`COUNT(*)` })
      .from(apiKeys)
      .where(and(eq(apiKeys.accountId, accountId), isNull(apiKeys.revokedAt)))
      .get()?.n ?? 0,
  );
  if (active >= max) throw errors.limitExceeded("max_api_keys", max, active, "active API keys per account");
}

/** A member's email as stored: trimmed, lowercase (unique per account). */
export const memberEmail = (email: string) => email.trim().toLowerCase();

/** The member of the account with this email (any case), if any. */
export function memberWithEmail(tx: Pick<Db, "select">, accountId: string, email: string) {
  return tx
    .select({ id: teamMembers.id })
    .from(teamMembers)
    .where(and(eq(teamMembers.accountId, accountId), sql`lower(${teamMembers.email}) = ${memberEmail(email)}`))
    .get();
}

/** The team cap (owner included), its one home: adding a member and a fixture's members both check it here. */
export function checkMemberRoom(tx: Pick<Db, "select">, limits: LimitsService, accountId: string): void {
  const max = limits.resolve("max_team_members", { accountId }).value;
  const current = memberCount(tx, accountId);
  if (current >= max)
    throw errors.limitExceeded("max_team_members", max, current, "team members per account (owner included)");
}

export function createAccountService(deps: { db: Db; clock: Clock; limits: LimitsService; keyHasher: KeyHasher }) {
  const { db, clock, limits } = deps;

  function requireAccount(tx: Pick<Db, "select">, accountId: string): void {
    if (!tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId)).get())
      throw errors.accountNotFound(accountId);
  }

  return {
    /** Every account, oldest first, with what the dashboard's overview counts. */
    listAccounts(): AccountSummary[] {
      // Correlated subqueries name "accounts"."id" in full: drizzle renders a one-table select's columns
      // unqualified, which inside the subquery would mean the inner table's own id.
      return db
        .select({
          id: accounts.id,
          name: accounts.name,
          createdAt: accounts.createdAt,
          extensions: sql<number>`(SELECT COUNT(*) FROM ${extensions} WHERE ${extensions.accountId} = "accounts"."id")`,
          activeApiKeys: sql<number>`(SELECT COUNT(*) FROM ${apiKeys} WHERE ${apiKeys.accountId} = "accounts"."id" AND ${apiKeys.revokedAt} IS NULL)`,
        })
        .from(accounts)
        .orderBy(asc(accounts.createdAt), asc(accounts.id))
        .all();
    },

    exists(accountId: string): boolean {
      return db.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId)).get() !== undefined;
    },

    /** `plaintext` is for keys the emulator makes itself (the dashboard's); a user's key is always random. */
    createKey(
      accountId: string,
      input: CreateApiKeyInput,
      plaintext: string = generateApiKey(),
    ): { apiKey: ApiKey; plaintext: string } {
      const row = db.write((tx) => {
        requireAccount(tx, accountId);
        checkKeyRoom(tx, limits, accountId);
        const row: KeyRow = {
          id: newId("key", clock.nowMs()),
          accountId,
          name: input.name,
          keyHash: deps.keyHasher.hash(plaintext),
          keyPrefix: keyPrefix(plaintext),
          scopes: JSON.stringify(input.scopes),
          createdAt: clock.iso(),
          revokedAt: null,
        };
        tx.insert(apiKeys).values(row).run();
        return row;
      });
      return { apiKey: toApiKey(row), plaintext };
    },

    /** Every key of the account, revoked ones included (with revokedAt), oldest first. */
    listKeys(accountId: string): ApiKey[] {
      requireAccount(db, accountId);
      return db
        .select()
        .from(apiKeys)
        .where(eq(apiKeys.accountId, accountId))
        .orderBy(asc(apiKeys.createdAt), asc(apiKeys.id))
        .all()
        .map(toApiKey);
    },

    /** Idempotent: revoking a revoked key keeps its first revokedAt. */
    revokeKey(accountId: string, keyId: string): void {
      db.write((tx) => {
        requireAccount(tx, accountId);
        const row = tx
          .select()
          .from(apiKeys)
          .where(and(eq(apiKeys.id, keyId), eq(apiKeys.accountId, accountId)))
          .get();
        if (!row) throw errors.apiKeyNotFound(keyId);
        if (row.revokedAt === null)
          tx.update(apiKeys).set({ revokedAt: clock.iso() }).where(eq(apiKeys.id, keyId)).run();
      });
    },

    listMembers(accountId: string): { members: TeamMember[]; count: number; max: number } {
      requireAccount(db, accountId);
      const members = db
        .select()
        .from(teamMembers)
        .where(eq(teamMembers.accountId, accountId))
        .orderBy(asc(teamMembers.createdAt), asc(teamMembers.id))
        .all();
      return {
        members,
        count: memberCount(db, accountId),
        max: limits.resolve("max_team_members", { accountId }).value,
      };
    },

    addMember(accountId: string, input: AddMemberInput): TeamMember {
      const email = memberEmail(input.email);
      return db.write((tx) => {
        requireAccount(tx, accountId);
        if (memberWithEmail(tx, accountId, email)) throw errors.memberExists(email);
        checkMemberRoom(tx, limits, accountId);
        const row: TeamMember = {
          id: newId("mem", clock.nowMs()),
          accountId,
          email,
          role: input.role,
          createdAt: clock.iso(),
        };
        tx.insert(teamMembers).values(row).run();
        return row;
      });
    },

    removeMember(accountId: string, memberId: string): void {
      db.write((tx) => {
        requireAccount(tx, accountId);
        const found = tx
          .select({ id: teamMembers.id })
          .from(teamMembers)
          .where(and(eq(teamMembers.id, memberId), eq(teamMembers.accountId, accountId)))
          .get();
        if (!found) throw errors.memberNotFound(memberId);
        tx.delete(teamMembers).where(eq(teamMembers.id, memberId)).run();
      });
    },
  };
}

export type AccountService = ReturnType<typeof createAccountService>;
