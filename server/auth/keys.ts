import { keyFromBytes } from "../../common/api-key";
import { hmacSha256, sha256Hex } from "../base/crypto";

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
  const hashKey = hmacSha256(secretsKey, "ext api key hash v1");
  const deriveKey = hmacSha256(secretsKey, "ext api key derive v1");
  return {
    hash: (plaintext) => KEYED_HASH_PREFIX + hmacSha256(hashKey, plaintext).toString("hex"),
    derive: (label) => {
      let block = 0;
      return keyFromBytes(() => hmacSha256(deriveKey, `${label}\n${block++}`));
    },
  };
}

/**
 * The unsalted SHA-256 that data directories made before keyed hashes hold: still accepted, and replaced by
 * the keyed hash the first time the key authenticates (it cannot be rehashed without the plaintext).
 */
export function legacyKeyHash(plaintext: string): string {
  return sha256Hex(plaintext);
}

/** What a listing may show of a key: its first characters. */
export function keyPrefix(plaintext: string): string {
  return plaintext.slice(0, Math.min(8, Math.max(0, plaintext.length - 4)));
}
