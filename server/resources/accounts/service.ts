/**
 * What a developer does in the dashboard under Account → Security → API Keys, and the team page:
 * create a key (plaintext returned once, stored as a hash), list keys (prefix only), revoke (effective on
 * the very next request, since authentication reads the row), add and remove team members.
 * The rows are written by their tables' writers (key-writer.ts, member-writer.ts), which hold the caps:
 * `max_api_keys` (active keys; revoked ones do not count) and `max_team_members` (the owner included).
 */
import { and, asc, eq, sql } from "drizzle-orm";
import { generateApiKey } from "../../../common/api-key";
import type { Clock } from "../../base/clock";
import type { Db } from "../../db/database";
import { accounts, apiKeys, extensions, teamMembers } from "../../db/schema";
import { errors } from "../../errors/catalog";
import type { LimitsService } from "../limits/service";
import type { KeyRow, KeyWriter } from "./key-writer";
import { type MemberWriter, memberCount } from "./member-writer";
import type { AccountSummary, AddMemberInput, ApiKey, CreateApiKeyInput, TeamMember } from "./model";

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

export function createAccountService(deps: {
  db: Db;
  clock: Clock;
  limits: LimitsService;
  /** The writers of keys and members, read on first use (the runtime builds each lazily). */
  writers: { readonly keyWriter: KeyWriter; readonly memberWriter: MemberWriter };
}) {
  const { db, clock, limits, writers } = deps;

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
        return writers.keyWriter.insertKey({ accountId, ...input, plaintext, createdAt: clock.iso() });
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
      return db.write((tx) => {
        requireAccount(tx, accountId);
        return writers.memberWriter.insertMember({ accountId, ...input, createdAt: clock.iso() });
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
