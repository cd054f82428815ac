import { createHash, createHmac, randomBytes } from "node:crypto";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** A new plaintext developer key: `ext_` + 40 base62 characters (238 bits). Shown once, never stored. */
export function generateApiKey(): string {
  // Rejection sampling keeps every character uniformly likely.
  let out = "";
  while (out.length < 40) {
    for (const byte of randomBytes(48)) {
      if (byte < 248 && out.length < 40) out += BASE62[byte % 62];
    }
  }
  return `ext_${out}`;
}

/**
 * Keys are stored and looked up by a keyed hash only (HMAC-SHA256, marked `hmac:`), so the database alone
 * (a copied file, a backup) cannot be used to test guesses of a short fixture key. The hashing key is
 * derived from the data directory's secrets key (a random one per process in memory mode).
 */
export interface KeyHasher {
  hash(plaintext: string): string;
}

export const KEYED_HASH_PREFIX = "hmac:";

export function createKeyHasher(secretsKey: Buffer): KeyHasher {
  const hashKey = createHmac("sha256", secretsKey).update("ext api key hash v1").digest();
  return { hash: (plaintext) => KEYED_HASH_PREFIX + createHmac("sha256", hashKey).update(plaintext).digest("hex") };
}

/**
 * The unsalted SHA-256 that data directories made before keyed hashes hold: still accepted, and replaced by
 * the keyed hash the first time the key authenticates (it cannot be rehashed without the plaintext).
 */
export function legacyKeyHash(plaintext: string): string {
  return createHash("sha256").update(plaintext).digest("hex");
}

/** What a listing may show of a key: its first characters. */
export function keyPrefix(plaintext: string): string {
  return plaintext.slice(0, Math.min(8, Math.max(0, plaintext.length - 4)));
}
