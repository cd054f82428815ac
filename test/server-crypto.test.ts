/**
 * server/base/crypto.ts gives the server's hashes, HMACs and random bytes without node:crypto (whose import loads
 * Node's stream machinery into every start): the same bytes node:crypto gives, so stored key hashes, migration
 * hashes and bundle digests made before and after are the same.
 */
import { expect, test } from "bun:test";
import * as node from "node:crypto";
import {
  fillRandom,
  hmacSha256,
  randomBytes,
  sha256,
  sha256Hasher,
  sha256Hex,
  timingSafeEqual,
} from "../server/base/crypto";

const INPUTS = ["", "ext api key hash v1", "é☃\u0000x", "a".repeat(100_000)];

test("SHA-256 and HMAC-SHA256 are node:crypto's, for strings (as UTF-8) and bytes", () => {
  for (const text of INPUTS) {
    const bytes = new TextEncoder().encode(text);
    const expected = node.createHash("sha256").update(text).digest();
    expect(sha256(text).equals(expected)).toBe(true);
    expect(sha256(bytes).equals(expected)).toBe(true);
    expect(sha256Hex(text)).toBe(expected.toString("hex"));
    for (const key of ["k", Buffer.from([0, 1, 2, 255]), "x".repeat(200)]) {
      expect(hmacSha256(key, text).equals(node.createHmac("sha256", key).update(text).digest())).toBe(true);
    }
  }
  const chunked = sha256Hasher();
  for (const part of ["ab", "", "cd"]) chunked.update(part);
  expect(chunked.digest("hex")).toBe(sha256Hex("abcd"));
});

test("random bytes: the size asked, past Web Crypto's 64 KiB a call, not all zero", () => {
  for (const size of [0, 1, 32, 65_536, 65_537, 200_000]) {
    const bytes = randomBytes(size);
    expect(bytes.length).toBe(size);
    if (size >= 32) expect(bytes.subarray(size - 32).some((b) => b !== 0)).toBe(true);
  }
  const pool = new Uint8Array(70_000);
  fillRandom(pool);
  expect(pool.subarray(66_000).some((b) => b !== 0)).toBe(true);
  expect(randomBytes(16).equals(randomBytes(16))).toBe(false);
});

test("the constant-time comparison tells equal bytes from different ones", () => {
  expect(timingSafeEqual(sha256("a"), sha256("a"))).toBe(true);
  expect(timingSafeEqual(sha256("a"), sha256("b"))).toBe(false);
});
