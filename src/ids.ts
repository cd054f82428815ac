import { randomBytes } from "node:crypto";

const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"; // Crockford base32: sorts like the time it encodes

export type IdPrefix = "acc" | "ext" | "ver" | "key" | "mem" | "ins" | "req" | "blob" | "flt" | "snap";

/** Opaque prefixed id, roughly sortable by creation: 10 chars of time then 16 random chars. */
export function newId(prefix: IdPrefix, nowMs: number): string {
  let time = "";
  let t = Math.max(0, Math.floor(nowMs));
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const random = randomBytes(16);
  let tail = "";
  for (const byte of random) tail += ALPHABET[byte % 32];
  return `${prefix}_${time}${tail}`.toLowerCase();
}
