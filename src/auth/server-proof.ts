/**
 * How a server proves it is the emulator a data directory names, without the client revealing anything:
 * the client sends a fresh nonce to `/healthz?challenge=…`; only a holder of the admin token (written to the
 * owner's private server.json) can answer with this HMAC. The URL is bound in, so an answer relayed from
 * another server does not pass for this one.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

/** What a challenge may be: long enough to be unguessable, short enough to bound the work. */
export const CHALLENGE_PATTERN = /^[A-Za-z0-9_-]{22,128}$/;

/** base64url(HMAC-SHA256(token, "ext-server-proof\n" + nonce + "\n" + url)); `url` is the origin in server.json. */
export function serverProof(token: string, nonce: string, url: string): string {
  return createHmac("sha256", token).update(`ext-server-proof\n${nonce}\n${url}`).digest("base64url");
}

/** True when `proof` is the answer to `nonce` for this token and URL (compared in constant time). */
export function isServerProof(proof: unknown, token: string, nonce: string, url: string): boolean {
  if (typeof proof !== "string") return false;
  const expected = Buffer.from(serverProof(token, nonce, url));
  const given = Buffer.from(proof);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
