import { createHash, randomBytes } from "node:crypto";

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

/** Keys are stored and looked up by this hash only. */
export function hashApiKey(plaintext: string): string {
  return createHash("sha256").update(plaintext).digest("hex");
}

/** What a listing may show of a key: its first characters. */
export function keyPrefix(plaintext: string): string {
  return plaintext.slice(0, Math.min(8, Math.max(0, plaintext.length - 4)));
}
