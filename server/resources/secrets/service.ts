/**
 * Secrets of an extension: names are listed, values are written and deleted, never read back. A value is
 * sealed (server/resources/secrets/cipher.ts) before it reaches the database and is never logged or echoed in an error.
 */
import { and, asc, count, eq, sql } from "drizzle-orm";
import { SECRET_NAME_RE, SECRET_VALUE_MAX_BYTES } from "../../../common/api-rules";
import type { Clock } from "../../base/clock";
import { type Db, param } from "../../db/database";
import { secrets } from "../../db/schema";
import { errors } from "../../errors/catalog";
import { type ExtensionService, ownedExtension } from "../extensions/service";
import type { LimitsService } from "../limits/service";
import type { SealedValue, SecretCipher } from "./cipher";

/** A secret's name, checked as PUT checks it; fixtures run it too. */
export function checkSecretName(name: string): void {
  if (!SECRET_NAME_RE.test(name)) throw errors.secretNameInvalid();
}

/** A secret's value, checked as PUT checks it (bytes of UTF-8, not empty, well-formed); fixtures run it too. */
export function checkSecretValue(value: string): void {
  const bytes = Buffer.byteLength(value, "utf8");
  if (bytes > SECRET_VALUE_MAX_BYTES) throw errors.secretValueTooLarge(bytes, SECRET_VALUE_MAX_BYTES);
  // The route's schema already refuses "", but the service is also called without HTTP.
  if (bytes === 0) throw errors.secretValueEmpty();
  // A lone surrogate cannot be encoded as UTF-8: it would be stored silently as U+FFFD, a different value.
  if (!value.isWellFormed()) throw errors.secretValueNotUnicode();
}

/** A secret to insert, its value sealed already (server/resources/secrets/cipher.ts). */
export interface NewSecret {
  accountId: string;
  extensionId: string;
  name: string;
  sealed: SealedValue;
  createdAt: string;
  /** Default: createdAt. */
  updatedAt?: string;
}

export function createSecretService(deps: {
  db: Db;
  clock: Clock;
  limits: LimitsService;
  extensions: ExtensionService;
  cipher: SecretCipher;
}) {
  const { db, clock, limits, extensions, cipher } = deps;
  // PUT's statements, prepared once (drizzle's builder would build and prepare each on every request); they run
  // inside the transaction below, on the same connection.
  const thisSecret = and(
    eq(secrets.extensionId, sql.placeholder("extensionId")),
    eq(secrets.name, sql.placeholder("name")),
  );
  // Replaces a secret of an extension the caller owns: the ownership check is part of the statement.
  const replaceStmt = db
    .update(secrets)
    .set({ ciphertext: param("ciphertext"), iv: param("iv"), updatedAt: param("now") })
    .where(and(thisSecret, ownedExtension(db, sql.placeholder("extensionId"), sql.placeholder("accountId"))))
    .returning({ name: secrets.name })
    .prepare();
  const existsStmt = db.select({ name: secrets.name }).from(secrets).where(thisSecret).prepare();
  const countStmt = db
    .select({ n: count() })
    .from(secrets)
    .where(eq(secrets.extensionId, sql.placeholder("extensionId")))
    .prepare();
  const insertStmt = db
    .insert(secrets)
    .values({
      extensionId: sql.placeholder("extensionId"),
      name: sql.placeholder("name"),
      ciphertext: sql.placeholder("ciphertext"),
      iv: sql.placeholder("iv"),
      createdAt: sql.placeholder("createdAt"),
      updatedAt: sql.placeholder("updatedAt"),
    })
    .prepare();

  /**
   * The one writer of secret rows: PUT of a new name and a fixture's or an export's secrets, inside the caller's
   * transaction, with room under max_secrets_per_extension (the cap's one home). The name and value are checked
   * before the value is sealed (checkSecretName, checkSecretValue).
   */
  function insertSecret(input: NewSecret): void {
    const { accountId, extensionId } = input;
    const max = limits.resolve("max_secrets_per_extension", { accountId, extensionId }).value;
    const current = countStmt.get({ extensionId })?.n ?? 0;
    if (current >= max) throw errors.limitExceeded("max_secrets_per_extension", max, current, "secrets per extension");
    const { ciphertext, iv } = input.sealed;
    const updatedAt = input.updatedAt ?? input.createdAt;
    insertStmt.run({ extensionId, name: input.name, ciphertext, iv, createdAt: input.createdAt, updatedAt });
  }

  // Made once (db.writer), not on every call. It writes secret rows only: keys already authenticated stay
  // remembered across it.
  const putTx = db.writer(
    (accountId: string, extensionId: string, name: string, sealed: SealedValue): { created: boolean } => {
      const now = clock.iso();
      const values = { extensionId, name, ciphertext: sealed.ciphertext, iv: sealed.iv, now };
      if (replaceStmt.get({ ...values, accountId })) return { created: false };
      // Nothing replaced: a new name, or an extension that is missing or another account's (404).
      extensions.findOwned(accountId, extensionId);
      insertSecret({ accountId, extensionId, name, sealed, createdAt: now });
      return { created: true };
    },
    { credentialsUntouched: true },
  );

  return {
    insertSecret,
    /** Whether the extension has a secret of this name. */
    exists: (extensionId: string, name: string) => existsStmt.get({ extensionId, name }) !== undefined,

    /** Names only, in byte order (uppercase before lowercase), as SQLite's BINARY collation sorts them. */
    listNames(accountId: string, extensionId: string): string[] {
      extensions.findOwned(accountId, extensionId);
      return db
        .select({ name: secrets.name })
        .from(secrets)
        .where(eq(secrets.extensionId, extensionId))
        .orderBy(asc(secrets.name))
        .all()
        .map((r) => r.name);
    },

    /** Creates or replaces. Returns whether a new name was created; replacing never counts against the cap. */
    put(accountId: string, extensionId: string, name: string, value: string): { created: boolean } {
      checkSecretName(name);
      checkSecretValue(value);
      return putTx(accountId, extensionId, name, cipher.seal(extensionId, name, value));
    },

    remove(accountId: string, extensionId: string, name: string): void {
      db.write((tx) => {
        extensions.findOwned(accountId, extensionId);
        const deleted = tx
          .delete(secrets)
          .where(and(eq(secrets.extensionId, extensionId), eq(secrets.name, name)))
          .returning({ name: secrets.name })
          .all();
        if (deleted.length === 0) throw errors.secretNotFound(name);
      });
    },
  };
}

export type SecretService = ReturnType<typeof createSecretService>;
