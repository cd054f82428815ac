/**
 * How a server proves it is the emulator whose token a client holds, without either side revealing the token:
 * the client sends a fresh nonce (`GET /healthz?challenge=<nonce>`), the server answers an HMAC of it keyed by
 * its admin token, and the client, holding the same token (from the data directory's private server.json),
 * computes the same value and compares. The message names the server's own URL (the `url` of server.json), so
 * a proof obtained from one server does not vouch for a listener at another address.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { proofMessage } from "../../client/server-proof";

/** 22 characters of base64url are 128 bits; 128 is plenty. */
export const CHALLENGE_PATTERN = "^[A-Za-z0-9_-]{22,128}$";

/** base64url(HMAC-SHA256(key = admin token, message = "ext-server-proof\n" + nonce + "\n" + url)). */
export function serverProof(adminToken: string, nonce: string, url: string): string {
  return createHmac("sha256", adminToken).update(proofMessage(nonce, url)).digest("base64url");
}

/** True when `proof` is the proof of `nonce` by the server at `url` holding `adminToken`; constant-time. */
export function checkServerProof(adminToken: string, nonce: string, url: string, proof: unknown): boolean {
  if (typeof proof !== "string") return false;
  const expected = Buffer.from(serverProof(adminToken, nonce, url));
  const given = Buffer.from(proof);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
