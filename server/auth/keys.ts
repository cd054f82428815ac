import { createHash, createHmac } from "node:crypto";
import { keyFromBytes } from "../../common/api-key";

/**
 * Keys are stored and looked up by a keyed hash only (HMAC-SHA256, marked `hmac:`), so the database alone
 * (a copied file, a backup) cannot be used to test guesses of a short fixture key. The hashing key is
 * derived from the data directory's secrets key (a random one per process in memory mode).
 */
export interface KeyHasher {
  hash(plaintext: string): string;
  /**
   * A key that is the same for the same label on the same data directory, and unguessable without its
   * secrets key: what the emulator's own dashboard key is, so a restart finds the key it made before.
   */
  derive(label: string): string;
}

export const KEYED_HASH_PREFIX = "hmac:";

export function createKeyHasher(secretsKey: Buffer): KeyHasher {
  const hashKey = createHmac("sha256", secretsKey).update("ext api key hash v1").digest();
  const deriveKey = createHmac("sha256", secretsKey).update("ext api key derive v1").digest();
  return {
    hash: (plaintext) => KEYED_HASH_PREFIX + createHmac("sha256", hashKey).update(plaintext).digest("hex"),
    derive: (label) => {
      let block = 0;
      return keyFromBytes(() => createHmac("sha256", deriveKey).update(`${label}\n${block++}`).digest());
    },
  };
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
