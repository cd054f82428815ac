import { fillRandom } from "./crypto";

const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"; // Crockford base32: sorts like the time it encodes

export type IdPrefix = "acc" | "ext" | "ver" | "key" | "mem" | "ins" | "req" | "blob" | "flt" | "snap";

// Random bytes drawn a page at a time: one call to the system's generator per 256 ids rather than per id
// (a 20,000-account fixture makes 40,000 of them).
const pool = Buffer.alloc(4096);
let used = pool.length;

function random16(): Buffer {
  if (used + 16 > pool.length) {
    fillRandom(pool);
    used = 0;
  }
  used += 16;
  return pool.subarray(used - 16, used);
}

/** Opaque prefixed id, roughly sortable by creation: 10 chars of time then 16 random chars. */
export function newId(prefix: IdPrefix, nowMs: number): string {
  let time = "";
  let t = Math.max(0, Math.floor(nowMs));
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32] + time;
    t = Math.floor(t / 32);
  }
  let tail = "";
  for (const byte of random16()) tail += ALPHABET[byte % 32];
  return `${prefix}_${time}${tail}`.toLowerCase();
}
