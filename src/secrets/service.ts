/**
 * Secrets of an extension: names are listed, values are written and deleted, never read back. A value is
 * sealed (src/secrets/cipher.ts) before it reaches the database and is never logged or echoed in an error.
 */
import { and, asc, eq } from "drizzle-orm";
import type { Clock } from "../clock";
import type { Db } from "../db/database";
import { secrets } from "../db/schema";
import { errors } from "../errors/catalog";
import type { ExtensionService } from "../extensions/service";
import type { LimitsService } from "../limits/service";
import type { SealedValue, SecretCipher } from "./cipher";
import { SECRET_NAME_RE, SECRET_VALUE_MAX_BYTES } from "./model";

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
  const replaceStmt = db.$client.prepare<never, [Uint8Array, Uint8Array, string, string, string]>(
    "UPDATE secrets SET ciphertext = ?, iv = ?, updated_at = ? WHERE extension_id = ? AND name = ?",
  );
  const countStmt = db.$client.prepare<{ n: number }, [string]>(
    "SELECT COUNT(*) AS n FROM secrets WHERE extension_id = ?",
  );
  const insertStmt = db.$client.prepare<never, [string, string, Uint8Array, Uint8Array, string, string]>(
    "INSERT INTO secrets (extension_id, name, ciphertext, iv, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
  );

  function checkName(name: string): void {
    if (!SECRET_NAME_RE.test(name)) throw errors.secretNameInvalid();
  }

  // A bun:sqlite transaction function made once (drizzle's `db.transaction` builds one on every call).
  const putTx = db.$client.transaction(
    (accountId: string, extensionId: string, name: string, sealed: SealedValue): { created: boolean } => {
      extensions.findOwned(accountId, extensionId);
      const now = clock.iso();
      if (replaceStmt.run(sealed.ciphertext, sealed.iv, now, extensionId, name).changes > 0) return { created: false };
      const max = limits.resolve("max_secrets_per_extension", { accountId, extensionId }).value;
      const current = countStmt.get(extensionId)?.n ?? 0;
      if (current >= max)
        throw errors.limitExceeded("max_secrets_per_extension", max, current, "secrets per extension");
      insertStmt.run(extensionId, name, sealed.ciphertext, sealed.iv, now, now);
      return { created: true };
    },
  );

  return {
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
      checkName(name);
      const bytes = Buffer.byteLength(value, "utf8");
      if (bytes > SECRET_VALUE_MAX_BYTES) throw errors.secretValueTooLarge(bytes, SECRET_VALUE_MAX_BYTES);
      // The route's schema already refuses "", but the service is also called without HTTP.
      if (bytes === 0) throw errors.secretValueEmpty();
      // A lone surrogate cannot be encoded as UTF-8: it would be stored silently as U+FFFD, a different value.
      if (!value.isWellFormed()) throw errors.secretValueNotUnicode();
      return putTx(accountId, extensionId, name, cipher.seal(extensionId, name, value));
    },

    remove(accountId: string, extensionId: string, name: string): void {
      db.transaction((tx) => {
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
