/**
 * The server's hashes, HMACs, random bytes and constant-time comparison, from Bun's native hasher and Web Crypto.
 * Not from node:crypto: importing that module loads Node's stream machinery, several milliseconds of every start
 * for functions that need none of it (test/meta/start-path.test.ts keeps node:crypto off the start path). The
 * secrets cipher's AES-GCM is the one use left of node:crypto; it is loaded when a secret is first sealed or
 * opened (server/resources/secrets/cipher.ts).
 */

type Bytes = string | Uint8Array;

/** SHA-256 of `data` (a string is hashed as UTF-8). */
export const sha256 = (data: Bytes): Buffer => new Bun.CryptoHasher("sha256").update(data).digest();

export const sha256Hex = (data: Bytes): string => new Bun.CryptoHasher("sha256").update(data).digest("hex");

/** An incremental SHA-256, for bytes that arrive in chunks (`update`, then `digest("hex")`). */
export const sha256Hasher = () => new Bun.CryptoHasher("sha256");

/** HMAC-SHA256 of `data` keyed by `key`. */
export const hmacSha256 = (key: Bytes, data: Bytes): Buffer =>
  new Bun.CryptoHasher("sha256", key).update(data).digest();

/** The most one call of the system's generator hands out (Web Crypto's limit). */
const MAX_RANDOM_BYTES = 65_536;

/** Fills `bytes` from the system's cryptographic generator. */
export function fillRandom(bytes: Uint8Array): void {
  for (let at = 0; at < bytes.length; at += MAX_RANDOM_BYTES)
    crypto.getRandomValues(bytes.subarray(at, Math.min(bytes.length, at + MAX_RANDOM_BYTES)));
}

/** `size` bytes from the system's cryptographic generator. */
export function randomBytes(size: number): Buffer {
  const out = Buffer.alloc(size);
  fillRandom(out);
  return out;
}

/** Whether two byte strings of equal length are equal, in time that does not depend on where they differ. */
export const timingSafeEqual = (a: Uint8Array, b: Uint8Array): boolean => crypto.timingSafeEqual(a, b);
